"""``ltm-desktop outbox`` (the real console script): what waits and what the replay kept
aside with why, a kept removal queued again over the change made elsewhere and then
written by the replay, another dismissed (kept on file), and bad numbers refused in one
line."""

from __future__ import annotations

import json
from pathlib import Path

from ltm_desktop.core.offline import QueuedKind, QueuedWrite
from ltm_desktop.core.service import MemoryService
from ltm_desktop.outbox import LocalOutbox
from tests.conftest import ServiceFactory, make_draft
from tests.console import assert_one_error_line, ltm


def _removal(memory_id: str, project: str, seen: float) -> QueuedWrite:
    return QueuedWrite(0, QueuedKind.REMOVE, memory_id, project, "laptop-agent", seen, {}, None,
                       seen)  # fmt: skip


def _kept_removals(service: MemoryService, box: LocalOutbox, project: str) -> list[str]:
    """Two offline removals of memories edited elsewhere meanwhile: the replay keeps both
    aside (a removal has no text to propose in the Inbox)."""
    ids = []
    for text in ("Deploys go out on Tuesdays", "Staging lives on port 8080"):
        memory = service.add(project, make_draft(text), "agent").memory
        box.queue(_removal(memory.id, project, memory.updated_at))
        service.update(memory.id, {"importance": 9}, "desktop-agent")  # on the other machine
        ids.append(memory.id)
    box._service = service
    box.replay_all()
    assert box.journal.kept_count() == 2
    assert box.journal.pending() == []
    return ids


def test_kept_writes_are_listed_retried_over_the_change_and_dismissed(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    data = tmp_path / "laptop"
    service = make_service(data)
    project = service.resolve_scope(cwd="/home/dev/src/shop", register=True)
    box = LocalOutbox(data, lambda: None)
    service.offline = box
    first, second = _kept_removals(service, box, project)

    listed = ltm(data, "outbox")
    assert listed.returncode == 0, listed.stderr
    assert "waiting: 0" in listed.stdout
    assert "kept aside: 2" in listed.stdout
    assert "changed elsewhere" in listed.stdout
    kept = json.loads(ltm(data, "outbox", "list", "--json").stdout)["kept"]
    assert [k["memory_id"] for k in kept] == [first, second]
    assert all(k["kind"] == "memory.remove" and k["actor"] == "laptop-agent" for k in kept)

    retried = ltm(data, "outbox", "retry", str(kept[0]["seq"]), "--over-changes")
    assert retried.returncode == 0, retried.stderr
    assert box.replay_all() == 1  # the app's or serve's replay writes it
    assert service.get(first).disabled  # removed over the edit made elsewhere
    assert not service.get(second).disabled

    dismissed = ltm(data, "outbox", "dismiss", f"#{kept[1]['seq']}")
    assert dismissed.returncode == 0, dismissed.stderr
    after = json.loads(ltm(data, "outbox", "--json", "--all").stdout)
    assert after["kept"] == []
    assert after["waiting"] == []
    assert [d["memory_id"] for d in after["dismissed"]] == [second]  # on file, not deleted
    assert not service.get(second).disabled
    box.close()


def test_bad_numbers_and_a_data_dir_without_an_outbox_get_one_line(tmp_path: Path) -> None:
    empty = tmp_path / "never-offline"
    empty.mkdir()
    listed = ltm(empty, "outbox")
    assert listed.returncode == 0
    assert "nothing was ever queued" in listed.stdout
    assert not (empty / "outbox.db").exists()  # looking makes nothing
    assert_one_error_line(ltm(empty, "outbox", "retry", "3"), "no outbox")
    result = ltm(empty, "outbox", "dismiss", "x")
    assert result.returncode == 2
    assert "is not a write number" in result.stderr
    assert "Traceback" not in result.stderr

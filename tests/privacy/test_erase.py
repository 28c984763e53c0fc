"""Erasing: only from the trash, no content left in the history, the database or its WAL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ltm_desktop.core.errors import Conflict, NotFound
from ltm_desktop.core.records import GLOBAL_PROJECT_ID, AuditAction, MemoryDraft, Provenance
from ltm_desktop.core.service import MemoryService
from tests.conftest import ServiceFactory

pytestmark = pytest.mark.every_backend

MARKER = "quixoticzebrafjord"  # one word, in no other memory
EDITED = "xylophonicmarmalade"


def files_hold(service: MemoryService, *words: str) -> list[str]:
    """Which of the database's files hold any of ``words`` (as stored or lower-cased)."""
    db = Path(service.store.location)
    found = []
    for path in (db, db.with_name(db.name + "-wal")):
        data = path.read_bytes() if path.exists() else b""
        if any(w.encode() in data or w.lower().encode() in data for w in words):
            found.append(path.name)
    return found


def _trashed(service: MemoryService, project: str) -> str:
    added = service.add(project, MemoryDraft(f"The {MARKER} server runs on port 8443"), "agent")
    memory_id = added.memory.id
    service.update(memory_id, {"content": f"The {EDITED} server runs on 9443"}, "gui")
    service.remove(memory_id, "gui")
    return memory_id


def test_an_active_memory_is_not_erased(service: MemoryService, project: str) -> None:
    memory = service.add(project, MemoryDraft("Deploys go out on Fridays"), "agent").memory
    with pytest.raises(Conflict, match="remove it first") as info:
        service.eraser.erase(memory.id, "gui")
    assert info.value.reason == "active"
    assert service.get(memory.id).content == "Deploys go out on Fridays"


def test_erase_keeps_who_and_when_but_no_content(service: MemoryService, project: str) -> None:
    kept = service.add(project, MemoryDraft("Deploys go out on Fridays"), "agent").memory
    memory_id = _trashed(service, project)
    erased = service.eraser.erase(memory_id, "gui")
    assert erased.ids == (memory_id,)
    with pytest.raises(LookupError):
        service.get(memory_id)
    history = service.history.memory(memory_id)
    assert [e.action for e in history][-1] is AuditAction.ERASED
    text = json.dumps([(e.before, e.after) for e in history])
    assert MARKER not in text
    assert EDITED not in text
    assert all(e.before is None and (e.after or {}).get("erased_by") == "gui" for e in history)
    assert [e.action for e in history[:4]] == [
        AuditAction.CREATED,
        AuditAction.UPDATED,
        AuditAction.REMOVED,
        AuditAction.ERASED,
    ]
    assert service.get(kept.id).content == "Deploys go out on Fridays"


@pytest.mark.sqlite_only
def test_no_byte_of_it_is_left_in_the_database_or_the_wal(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    service = make_service(tmp_path / "data")
    project = GLOBAL_PROJECT_ID
    for i in range(30):  # neighbours on the same pages and in the same index segments
        words = " ".join(f"w{i}x{j}" for j in range(4))  # no two are near duplicates
        service.add(project, MemoryDraft(f"Neighbour {words}"), "agent")
    memory_id = _trashed(service, project)
    assert files_hold(service, MARKER, EDITED)  # the check can fail
    service.eraser.erase(memory_id, "gui")
    assert files_hold(service, MARKER, EDITED) == []
    assert len(service.list_memories(project)) == 30


def test_empty_trash_erases_the_scope_s_trash_only(service: MemoryService, project: str) -> None:
    first = _trashed(service, project)
    second = service.add(project, MemoryDraft("Old staging host was vm-12"), "agent").memory
    service.remove(second.id, "gui")
    elsewhere = service.add(GLOBAL_PROJECT_ID, MemoryDraft("Global note"), "agent").memory
    service.remove(elsewhere.id, "gui")
    active = service.add(project, MemoryDraft("Deploys go out on Fridays"), "agent").memory
    erased = service.eraser.empty_trash(project, "gui")
    assert set(erased.ids) == {first, second.id}
    assert service.get(elsewhere.id).disabled
    assert not service.get(active.id).disabled


@pytest.mark.sqlite_only
def test_the_history_refuses_any_other_rewrite(service: MemoryService, project: str) -> None:
    memory = service.add(project, MemoryDraft("Deploys go out on Fridays"), "agent").memory
    database = service.store._db  # type: ignore[attr-defined]
    # the writer is shared with the service's threads (MEMORY.md's worker asks it for
    # data_version): used here as they use it, under the write gate's lock
    with database._gate.lock, pytest.raises(Exception, match="append-only"):
        database._writer.execute("UPDATE audit SET after = '{}' WHERE memory_id = ?", (memory.id,))
    with database._gate.lock, pytest.raises(Exception, match="append-only"):
        database._writer.execute("DELETE FROM audit WHERE memory_id = ?", (memory.id,))


def test_erasing_an_approved_memory_erases_its_proposal(
    service: MemoryService, project: str
) -> None:
    provenance = Provenance("run_1", "claude-code", "s1", "text", "m", 1.0)
    entries = [{"content": f"The {MARKER} cache is warmed at boot"}]
    service.inbox.store_extraction(project, entries, provenance, review=True, started_at=1.0)
    (item,) = service.inbox.entries(project)
    memory = service.inbox.approve(item.id, "gui").memory
    assert memory is not None
    service.remove(memory.id, "gui")
    service.eraser.erase(memory.id, "gui")
    with pytest.raises(NotFound):
        service.inbox.get(item.id)
    history = service.history.memory(item.id)
    assert [e.action for e in history] == [AuditAction.PROPOSED, AuditAction.APPROVED]
    assert MARKER not in json.dumps([(e.before, e.after) for e in history])
    assert files_hold(service, MARKER) == []

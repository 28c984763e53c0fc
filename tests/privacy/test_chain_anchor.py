"""The audit chain's head is anchored outside the database (``ltm.sqlite.audit-head.json``):
events deleted from the end of the history, or a history rewritten whole, show in
``verify`` and in ``health`` at start (the app still opens); erasure, a restore of a
verified backup, a fresh data dir and a data dir from before the anchor raise nothing."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from ltm_desktop.backups import backup_launch
from ltm_desktop.cli import main
from ltm_desktop.core.records import GLOBAL_PROJECT_ID, MemoryDraft
from ltm_desktop.core.settings.launch import resolve_launch
from ltm_desktop.launching import open_service
from ltm_desktop.store.audit import chain as audit_chain
from tests.conftest import ServiceFactory
from tests.console import ltm

DELETE = "audit_is_append_only_delete"
UPDATE = "audit_is_append_only_update"


def _filled(make_service: ServiceFactory, data: Path, n: int = 4) -> list[str]:
    service = make_service(data)
    ids = [
        service.add(GLOBAL_PROJECT_ID, MemoryDraft(f"note {i} about deploys"), "t").memory.id
        for i in range(n)
    ]
    service.close()
    return ids


def _anchor(data: Path) -> Path:
    return data / "ltm.sqlite.audit-head.json"


def _head(db: Path) -> dict[str, object]:
    conn = sqlite3.connect(db)
    try:
        seq, digest = audit_chain.head(conn)
    finally:
        conn.close()
    return {"seq": seq, "hash": digest}


def _offline(data: Path, *statements: str) -> None:
    """``statements`` run on the closed database as a tool that knows no anchor would,
    the append-only triggers dropped first and put back after as they were."""
    conn = sqlite3.connect(data / "ltm.sqlite", isolation_level=None)
    try:
        triggers = dict(conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'"))
        conn.execute(f"DROP TRIGGER {DELETE}")
        conn.execute(f"DROP TRIGGER {UPDATE}")
        for statement in statements:
            conn.execute(statement)
        conn.execute(triggers[DELETE])
        conn.execute(triggers[UPDATE])
    finally:
        conn.close()


def test_deleting_the_newest_events_is_reported_by_verify_and_at_start(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    service = make_service(data)
    memory = service.add(GLOBAL_PROJECT_ID, MemoryDraft("deploys go out on Fridays"), "t").memory
    service.add(GLOBAL_PROJECT_ID, MemoryDraft("staging is vm-12"), "t")
    for importance in (7, 9):  # the events a tool deletes, putting the row back to match
        service.update(memory.id, {"importance": importance}, "t")
    service.close()
    assert ltm(data, "verify").returncode == 0
    _offline(
        data,
        "DELETE FROM audit WHERE seq > 2",
        f"UPDATE memories SET importance = {memory.importance} WHERE id = '{memory.id}'",
    )
    done = ltm(data, "verify")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "ends at event #2" in done.stdout
    assert "#4" in done.stdout
    opened = open_service(data)  # the app still opens, and says so
    try:
        problems = opened.service.database.health().problems
        assert any("ends at event #2" in p for p in problems), problems
        opened.service.add(GLOBAL_PROJECT_ID, MemoryDraft("still works"), "t")
    finally:
        opened.service.close()
    assert ltm(data, "verify").returncode == 1  # the evidence is not overwritten by writes


def test_a_history_rewritten_whole_is_reported(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    _filled(make_service, data)
    conn = sqlite3.connect(data / "ltm.sqlite", isolation_level=None)
    triggers = dict(conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'"))
    for name in triggers:
        conn.execute(f"DROP TRIGGER {name}")
    conn.execute("UPDATE audit SET after = json_set(after, '$.content', 'forged') WHERE seq = 1")
    audit_chain.rechain(conn)  # every hash recomputed: the chain itself checks out
    for sql in triggers.values():
        conn.execute(sql)
    conn.close()
    done = ltm(data, "verify")
    assert done.returncode == 1, done.stdout + done.stderr
    seq = json.loads(_anchor(data).read_text())["seq"]
    assert f"audit event #{seq} has another hash than" in done.stdout


def test_erasing_restoring_and_reopening_raise_nothing(
    make_service: ServiceFactory, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    service = make_service(data)
    ids = [
        service.add(GLOBAL_PROJECT_ID, MemoryDraft(f"note {i}"), "t").memory.id for i in range(3)
    ]
    made = backup_launch(
        resolve_launch(data, None), tmp_path / "b.sqlite"
    )  # an older copy: 3 events
    service.add(GLOBAL_PROJECT_ID, MemoryDraft("after the backup"), "t")
    service.eraser.erase(ids[0], "t")  # tombstones: the hashes stay, so does the head
    service.close()
    assert ltm(data, "verify").returncode == 0
    assert json.loads(_anchor(data).read_text()) == _head(data / "ltm.sqlite")

    assert main(["--data-dir", str(data), "restore", str(made.path)]) == 0
    capsys.readouterr()
    older = _head(made.path)
    assert json.loads(_anchor(data).read_text()) == older  # re-anchored
    done = ltm(data, "verify")
    assert done.returncode == 0, done.stdout


def test_a_data_dir_without_an_anchor_gets_one_without_alarm(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    _filled(make_service, data)
    _anchor(data).unlink()  # a data dir from before the anchor
    opened = open_service(data)
    try:
        assert opened.service.database.health().problems == ()
    finally:
        opened.service.close()
    assert json.loads(_anchor(data).read_text()) == _head(data / "ltm.sqlite")
    assert ltm(data, "verify").returncode == 0


def test_a_fresh_data_dir_is_anchored(tmp_path: Path) -> None:
    data = tmp_path / "data"
    opened = open_service(data)
    try:
        assert opened.service.database.health().problems == ()
    finally:
        opened.service.close()
    assert json.loads(_anchor(data).read_text())["seq"] == 0
    assert _anchor(data).stat().st_mode & 0o777 == 0o600


@pytest.mark.slow
def test_a_running_store_moves_the_anchor_at_its_checkpoints(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    from tests.api.conftest import wait_until

    data = tmp_path / "data"
    service = make_service(data)
    for i in range(3):
        service.add(GLOBAL_PROJECT_ID, MemoryDraft(f"note {i}"), "t")
    wait_until(
        lambda: (
            _anchor(data).exists()
            and json.loads(_anchor(data).read_text()) == _head(data / "ltm.sqlite")
        )
    )
    assert service.database.health().problems == ()

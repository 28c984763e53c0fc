"""Tamper evidence: the chained history, ``ltm-desktop verify``, and the migration that
chains an existing history without losing it."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from ltm_desktop.core.records import GLOBAL_PROJECT_ID, MemoryDraft
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.paths import DataPaths
from ltm_desktop.store import open_store
from ltm_desktop.store.audit.chain import content_hash
from ltm_desktop.store.migrations import MIGRATIONS, latest_version, migrate
from tests.conftest import ServiceFactory
from tests.console import assert_one_error_line, ltm


def _filled(service: MemoryService) -> list[str]:
    ids = []
    for text in ("Deploys go out on Fridays", "Use tabs in Makefiles", "Staging is vm-12"):
        ids.append(service.add(GLOBAL_PROJECT_ID, MemoryDraft(text), "agent").memory.id)
    service.update(ids[0], {"content": "Deploys go out on Thursdays"}, "gui")
    service.remove(ids[2], "gui")
    return ids


def test_a_healthy_database_verifies(service: MemoryService) -> None:
    _filled(service)
    full, quick = service.integrity.verify(), service.integrity.verify(quick=True)
    assert full.problems == ()
    assert quick.problems == ()
    assert full.events == 5
    assert full.head == quick.head


FORGED = json.dumps({"content": "Deploys go out whenever"})


def tampered(make_service: ServiceFactory, tmp_path: Path, *sql: str) -> tuple[list[str], int]:
    """A filled data dir closed, then ``sql`` run on its file as an attacker would, offline,
    each statement given (first memory id, the seq of its ``updated`` event, the forged
    text); returns (the memory ids, that seq)."""
    service = make_service(tmp_path / "data")
    ids = _filled(service)
    db = Path(service.store.location)
    service.close()
    assert ltm(tmp_path / "data", "verify").returncode == 0
    with sqlite3.connect(db) as conn:
        (seq,) = conn.execute(
            "SELECT seq FROM audit WHERE memory_id = ? AND action = 'updated'", (ids[0],)
        ).fetchone()
        conn.create_function("ltm_content_hash", 3, content_hash)
        for statement in sql:
            conn.execute(statement, {"id": ids[1], "seq": seq, "forged": FORGED})
    conn.close()
    return ids, seq


def test_verify_names_a_dropped_trigger_and_a_rewritten_event(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    ids, seq = tampered(
        make_service,
        tmp_path,
        "DROP TRIGGER audit_is_append_only_update",
        "UPDATE audit SET after = :forged WHERE seq = :seq",
    )
    done = ltm(tmp_path / "data", "verify")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "the trigger audit_is_append_only_update is missing" in done.stdout
    assert f"audit event #{seq} (updated of {ids[0]}) was changed after it was written" in (
        done.stdout
    )


def test_a_recomputed_content_hash_breaks_the_chain(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    ids, seq = tampered(
        make_service,
        tmp_path,
        "DROP TRIGGER audit_is_append_only_update",
        "UPDATE audit SET after = :forged, "
        "content_hash = ltm_content_hash(nonce, before, :forged) WHERE seq = :seq",
    )
    done = ltm(tmp_path / "data", "verify")
    assert f"audit event #{seq} (updated of {ids[0]}) does not follow" in done.stdout


@pytest.mark.slow
def test_a_row_changed_behind_the_history_is_named(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    ids, _ = tampered(make_service, tmp_path, "UPDATE memories SET importance = 9 WHERE id = :id")
    done = ltm(tmp_path / "data", "verify")
    assert done.returncode == 1
    assert f"memory {ids[1]} differs from its history in importance" in done.stdout


def test_the_migration_chains_an_existing_history(tmp_path: Path) -> None:
    db, backups = tmp_path / "ltm.sqlite", tmp_path / "backups"
    conn = sqlite3.connect(db, isolation_level=None)
    migrate(conn, db, backups, MIGRATIONS[:4])  # a database of version 4, with a history
    conn.execute(
        "INSERT INTO memories (id, project_pk, title, content, category, importance, tags, "
        "signature, created_at, updated_at, source, disabled) VALUES "
        "('mem_1', 1, 'Deploys', 'Deploys go out on Fridays', 'knowledge', 3, '[]', 's', "
        "1.0, 1.0, 'agent', 1)"
    )
    created: dict[str, object] = {
        "title": "Deploys",
        "content": "Deploys go out on Fridays",
        "category": "knowledge",
    }
    created |= {"importance": 3, "tags": [], "ttl_days": None, "disabled": False}
    events = [("created", None, created), ("removed", {"disabled": False}, {"disabled": True})]
    for at, (action, before, after) in enumerate(events, start=1):
        conn.execute(
            "INSERT INTO audit (at, memory_id, project_pk, actor, action, before, after) "
            "VALUES (?, 'mem_1', 1, 'agent', ?, ?, ?)",
            (float(at), action, json.dumps(before) if before else None, json.dumps(after)),
        )
    conn.close()
    service = MemoryService(open_store(db, backups), DataPaths(tmp_path))
    try:
        assert service.store.schema_version == latest_version()
        history = [(e.action.value, e.before, e.after) for e in service.history.memory("mem_1")]
        assert history == events
        assert service.integrity.verify().problems == ()
        assert list(backups.glob("ltm-v4-*.sqlite"))  # backed up first
        service.eraser.erase("mem_1", "gui")  # the new trigger lets a tombstone through
        assert service.integrity.verify().problems == ()
    finally:
        service.close()


@pytest.mark.slow
def test_the_erase_commands(make_service: ServiceFactory, tmp_path: Path) -> None:
    service = make_service(tmp_path / "data")
    active, _, trashed = _filled(service)
    service.close()
    refused = ltm(tmp_path / "data", "erase", active)
    assert_one_error_line(refused, f"memory {active} is not in the trash; remove it first")
    done = ltm(tmp_path / "data", "erase", trashed)
    assert done.returncode == 0, done.stderr
    assert f"erased {trashed}" in done.stdout
    assert "backups taken before still hold it" in done.stdout
    emptied = ltm(tmp_path / "data", "empty-trash", "--project", "global")
    assert "0 erased" in emptied.stdout
    assert ltm(tmp_path / "data", "verify").returncode == 0

"""The chain with people and machines on SQLite: a database from before migration 14 is
migrated (backed up first), its old events keep their hashes and verify unchanged beside
new ones that name their person and machine, and changing either, on a new event or an
old one, is found by ``ltm-desktop verify`` (the real console script)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from ltm_desktop.core.actors import Identity, Machine, WhoAmI
from ltm_desktop.core.records import GLOBAL_PROJECT_ID, MemoryDraft
from ltm_desktop.store.audit.chain import TRIGGERS
from ltm_desktop.store.migrations import V5_TRIGGERS
from tests.conftest import ServiceFactory
from tests.console import assert_one_error_line, ltm

ANA = WhoAmI.fixed(Identity("ana@laptop", Machine("a1b2c3", "laptop")))


def as_version_12(db: Path) -> None:
    """Make ``db`` what an ltm-desktop before migration 14 left: no person or machine
    columns, migration 5's triggers, version 12 (13 is another change's)."""
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        conn.execute("BEGIN")
        conn.execute("DROP TRIGGER audit_is_append_only_update")
        conn.execute("DROP INDEX audit_by_person")
        for column in ("person", "machine", "machine_id"):
            conn.execute(f"ALTER TABLE audit DROP COLUMN {column}")
        conn.execute(V5_TRIGGERS[0])
        conn.execute("DELETE FROM schema_migrations WHERE version = 14")
        conn.execute("PRAGMA user_version = 12")
        conn.execute("COMMIT")
    finally:
        conn.close()


@pytest.fixture
def migrated(make_service: ServiceFactory, tmp_path: Path) -> tuple[Path, list[int]]:
    """A data dir written before migration 14 (three events), opened by this version as
    Ana (two more); (its database, the new events' seqs)."""
    data = tmp_path / "data"
    old = make_service(data)
    first = old.add(GLOBAL_PROJECT_ID, MemoryDraft("Deploys go out on Fridays"), "codex")
    old.add(GLOBAL_PROJECT_ID, MemoryDraft("Use tabs in Makefiles"), "claude-code")
    old.update(first.memory.id, {"content": "Deploys go out on Thursdays"}, "gui")
    db = Path(old.store.location)
    old.close()
    as_version_12(db)
    new = make_service(data, identity=ANA)
    assert list((data / "backups").glob("ltm-v12-*.sqlite"))  # backed up before migrating
    new.add(GLOBAL_PROJECT_ID, MemoryDraft("Staging is vm-12"), "codex")
    new.update(first.memory.id, {"importance": 8}, "gui")
    seqs = [e.seq for e in new.history.project(GLOBAL_PROJECT_ID) if e.person is not None]
    new.close()
    return db, sorted(seqs)


@pytest.mark.sqlite_only
def test_an_old_history_migrated_forward_verifies_beside_new_events(
    migrated: tuple[Path, list[int]], tmp_path: Path
) -> None:
    db, seqs = migrated
    assert seqs == [4, 5]
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT seq, person, machine FROM audit ORDER BY seq").fetchall()
    conn.close()
    assert rows == [
        (1, None, None),
        (2, None, None),
        (3, None, None),
        (4, "ana@laptop", "laptop"),
        (5, "ana@laptop", "laptop"),
    ]
    verified = ltm(tmp_path / "data", "verify")
    assert verified.returncode == 0, verified.stderr
    assert "0 problem(s); 5 audit events" in verified.stdout
    shown = ltm(tmp_path / "data", "history", "--project", GLOBAL_PROJECT_ID)
    lines = shown.stdout.splitlines()
    assert lines[0].startswith("#5 ")
    assert lines[0].endswith("by gui · ana@laptop on laptop")
    assert lines[-1].startswith("#1 ")
    assert lines[-1].endswith("by codex")


@pytest.mark.sqlite_only
def test_history_by_person_and_bad_input(migrated: tuple[Path, list[int]], tmp_path: Path) -> None:
    data = tmp_path / "data"
    mine = ltm(data, "history", "--project", GLOBAL_PROJECT_ID, "--person", "ana@laptop", "--json")
    assert mine.returncode == 0, mine.stderr
    events = json.loads(mine.stdout)
    assert [(e["seq"], e["machine"], e["machine_id"]) for e in events] == [
        (5, "laptop", "a1b2c3"),
        (4, "laptop", "a1b2c3"),
    ]
    assert_one_error_line(ltm(data, "history", "--memory", "mem_nope"), "no memory has the id")
    assert_one_error_line(ltm(data, "history", "--project", "bad"), "project_id")


@pytest.mark.sqlite_only
@pytest.mark.parametrize(
    "forgery",
    [
        "UPDATE audit SET machine = 'elsewhere' WHERE seq = 4",
        "UPDATE audit SET person = 'mallory@laptop' WHERE seq = 5",
        "UPDATE audit SET machine_id = NULL, machine = NULL, person = NULL WHERE seq = 4",
        "UPDATE audit SET person = 'ana@laptop' WHERE seq = 2",  # an old event given one
    ],
)
def test_changing_who_made_an_event_is_found(
    migrated: tuple[Path, list[int]], tmp_path: Path, forgery: str
) -> None:
    db, _ = migrated
    with sqlite3.connect(db) as conn:
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            conn.execute(forgery)  # the trigger refuses it
        conn.execute("DROP TRIGGER audit_is_append_only_update")  # as an attacker would
        conn.execute(forgery)
        conn.execute(TRIGGERS["audit_is_append_only_update"])
    conn.close()
    verified = ltm(tmp_path / "data", "verify")
    assert verified.returncode != 0
    seq = forgery.rsplit("= ", 1)[1]
    assert f"audit event #{seq} " in verified.stdout + verified.stderr
    assert "chain was rewritten here" in verified.stdout + verified.stderr

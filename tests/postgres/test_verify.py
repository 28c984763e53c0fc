"""``verify`` on PostgreSQL (postgres/audit/verify.py): the append-only trigger there and
enabled, the audit chain (the newest events when quick), and the memories whose JSON
columns do not decode; the head hash and the number of events in the answer."""

from __future__ import annotations

import psycopg
import pytest

from ltm_desktop.core.backend import AuditEntry
from ltm_desktop.core.records import AuditAction
from ltm_desktop.engine.chain import GENESIS
from ltm_desktop.engine.verifying import QUICK_EVENTS
from ltm_desktop.postgres.audit.log import check_chain, record_audits, tombstone_history
from ltm_desktop.postgres.audit.verify import verify_database
from ltm_desktop.postgres.conn import Conn
from ltm_desktop.postgres.database import PgDatabase


def scope(conn: Conn, project_id: str) -> int:
    row = conn.execute(
        "INSERT INTO projects (project_id, name, created_at) VALUES (%s, %s, 0) RETURNING pk",
        (project_id, project_id),
    ).fetchone()
    assert row is not None
    return int(row[0])


def memory(conn: Conn, project_pk: int, memory_id: str, tags: str, files: str = "[]") -> None:
    conn.execute(
        "INSERT INTO memories (id, project_pk, title, content, category, importance, tags, "
        "signature, created_at, updated_at, source, files) "
        "VALUES (%s, %s, 't', 'c', 'knowledge', 5, %s, %s, 1, 1, 'test', %s)",
        (memory_id, project_pk, tags, memory_id, files),
    )


def events(pk: int, n: int, start: int = 0) -> list[tuple[int, AuditEntry]]:
    return [
        (
            pk,
            AuditEntry(
                float(i), f"mem_{i}", "proj_a", "agent", AuditAction.CREATED, None, {"n": i}
            ),
        )
        for i in range(start, start + n)
    ]


def superuser(url: str, *statements: str) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        for statement in statements:
            conn.execute(statement)


def verify(db: PgDatabase, quick: bool = False) -> tuple[tuple[str, ...], str, int]:
    found = db.read_snapshot(lambda c: verify_database(c, quick))
    assert found.quick is quick
    return found.problems, found.head, found.events


@pytest.fixture
def chained(pg_db: PgDatabase) -> int:
    with pg_db.transaction() as conn:
        pk = scope(conn, "proj_a")
        record_audits(conn, events(pk, 5))
    return pk


def test_an_empty_database_verifies(pg_db: PgDatabase) -> None:
    assert verify(pg_db) == ((), GENESIS, 0)
    assert verify(pg_db, quick=True) == ((), GENESIS, 0)


def test_a_chain_verifies_with_its_head_and_length(pg_db: PgDatabase, chained: int) -> None:
    _, head = pg_db.read_snapshot(lambda c: check_chain(c))
    assert verify(pg_db) == ((), head, 5)
    assert verify(pg_db, quick=True) == ((), head, 5)
    with pg_db.transaction() as conn:
        tombstone_history(conn, "mem_2", {"erased_at": 9.5, "erased_by": "gui"})
    assert verify(pg_db) == ((), head, 5)  # an erasure keeps the chain and its head


def test_an_event_altered_with_the_trigger_disabled_is_named(
    pg_url: str, pg_db: PgDatabase, chained: int
) -> None:
    superuser(
        pg_url,
        "ALTER TABLE audit DISABLE TRIGGER audit_is_append_only",
        "UPDATE audit SET after = '{\"n\": 99}' WHERE seq = 3",
        "ALTER TABLE audit ENABLE TRIGGER audit_is_append_only",
    )
    problems, _, count = verify(pg_db)
    assert problems == (
        "audit event #3 (created of mem_2) was changed after it was written "
        "(its content does not match its hash)",
    )
    assert count == 5
    assert verify(pg_db, quick=True)[0] == problems


def test_a_disabled_or_missing_trigger_or_a_changed_function_is_a_problem(
    pg_url: str, pg_db: PgDatabase, chained: int
) -> None:
    superuser(pg_url, "ALTER TABLE audit DISABLE TRIGGER audit_is_append_only")
    assert verify(pg_db, quick=True)[0] == (
        "the trigger audit_is_append_only is disabled: the audit history can be rewritten",
    )
    superuser(
        pg_url,
        "ALTER TABLE audit ENABLE TRIGGER audit_is_append_only",
        "CREATE OR REPLACE FUNCTION audit_is_append_only() RETURNS trigger "
        "LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$",
    )
    assert verify(pg_db, quick=True)[0] == ("the trigger audit_is_append_only was changed",)
    superuser(pg_url, "DROP TRIGGER audit_is_append_only ON audit")
    assert verify(pg_db)[0] == (
        "the trigger audit_is_append_only is missing: the audit history can be rewritten",
    )


def test_a_trigger_that_no_longer_guards_deletes_was_changed(
    pg_url: str, pg_db: PgDatabase, chained: int
) -> None:
    superuser(
        pg_url,
        "DROP TRIGGER audit_is_append_only ON audit",
        "CREATE TRIGGER audit_is_append_only BEFORE UPDATE ON audit "
        "FOR EACH ROW EXECUTE FUNCTION audit_is_append_only()",
    )
    assert verify(pg_db)[0] == ("the trigger audit_is_append_only was changed",)


def test_the_quick_check_follows_the_newest_events_only(
    pg_url: str, pg_db: PgDatabase, chained: int
) -> None:
    with pg_db.transaction() as conn:
        record_audits(conn, events(chained, QUICK_EVENTS + 10, start=5))
    superuser(
        pg_url,
        "ALTER TABLE audit DISABLE TRIGGER audit_is_append_only",
        "UPDATE audit SET actor = 'forger' WHERE seq = 2",
        "ALTER TABLE audit ENABLE TRIGGER audit_is_append_only",
    )
    problems, head, count = verify(pg_db, quick=True)
    assert problems == ()
    assert count == QUICK_EVENTS + 15
    full, full_head, _ = verify(pg_db)
    assert full == (
        "audit event #2 (created of mem_1) does not follow the event before it "
        "(the chain was rewritten here)",
    )
    assert full_head != head  # the last good hash, where the chain broke


def test_memories_whose_json_columns_do_not_decode_are_named(pg_db: PgDatabase) -> None:
    with pg_db.transaction() as conn:
        pk = scope(conn, "proj_a")
        memory(conn, pk, "mem_ok", '["a", "b"]')
        memory(conn, pk, "mem_ok_escaped", '["a\\"b", "\\u00e9"]', files='["src/app.py"]')
        memory(conn, pk, "mem_ok_compact", '["a","b"]')
        memory(conn, pk, "mem_bad_tags", "not json")
        memory(conn, pk, "mem_bad_files", "[]", files='{"a": 1}')
        memory(conn, pk, "mem_bad_escape", '["a\\x"]')
        memory(conn, pk, "mem_number", "[1]")
        conn.execute("UPDATE memories SET provenance = '[1]' WHERE id = 'mem_ok'")
    problems, _, _ = verify(pg_db)
    assert problems == (
        "memory mem_bad_escape has a tags column that is not valid JSON "
        "(a list of strings); it reads as empty",
        "memory mem_bad_files has a files column that is not valid JSON "
        "(a list of strings); it reads as empty",
        "memory mem_bad_tags has a tags column that is not valid JSON "
        "(a list of strings); it reads as empty",
        "memory mem_number has a tags column that is not valid JSON "
        "(a list of strings); it reads as empty",
        "memory mem_ok has a provenance column that is not valid JSON (an object); "
        "it reads as empty",
    )
    assert verify(pg_db, quick=True)[0] == ()  # the quick check reads no memories


def test_many_damaged_memories_are_counted_past_the_first_twenty(pg_db: PgDatabase) -> None:
    with pg_db.transaction() as conn:
        pk = scope(conn, "proj_a")
        for i in range(25):
            memory(conn, pk, f"mem_{i:02d}", "{")
    problems, _, _ = verify(pg_db)
    assert len(problems) == 21
    assert problems[0].startswith("memory mem_00 has a tags column")
    assert problems[-1] == "... and 5 more memories with such columns"

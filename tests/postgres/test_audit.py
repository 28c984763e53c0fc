"""The audit history on PostgreSQL (postgres/audit/log.py): one hash chain, appended from one
read of the head, stored as SQLite stores it (a history copied either way verifies), and
append-only: the trigger lets an erasure's tombstone through and nothing else."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import psycopg
import pytest

from ltm_desktop.core.backend import AuditEntry
from ltm_desktop.core.errors import NotFound, StorageError
from ltm_desktop.core.records import AuditAction
from ltm_desktop.engine.chain import GENESIS
from ltm_desktop.postgres.audit.log import (
    PgAuditReads,
    check_chain,
    head,
    record_audits,
    tombstone_history,
)
from ltm_desktop.postgres.conn import Conn
from ltm_desktop.postgres.database import PgDatabase
from ltm_desktop.postgres.scopes import ScopeKeys
from ltm_desktop.store import SqliteStore
from ltm_desktop.store.audit import chain as sqlite_chain

TOMBSTONE = {"erased_at": 1234.5, "erased_by": "gui"}


def scope(conn: Conn, project_id: str) -> int:
    row = conn.execute(
        "INSERT INTO projects (project_id, name, created_at) VALUES (%s, %s, 0) RETURNING pk",
        (project_id, project_id),
    ).fetchone()
    assert row is not None
    return int(row[0])


def entry(
    memory_id: str,
    action: AuditAction = AuditAction.CREATED,
    actor: str = "claude-code",
    at: float = 100.25,
    after: dict[str, object] | None = None,
    before: dict[str, object] | None = None,
) -> AuditEntry:
    values = {"title": f"about {memory_id}", "content": "naïve café ✓"} if after is None else after
    return AuditEntry(at, memory_id, "proj_a", actor, action, before, values)


@pytest.fixture
def history(pg_db: PgDatabase) -> tuple[int, int]:
    """Scope A: mem_1 created, updated, removed; mem_2 created by another actor;
    scope B: mem_3 created. (pk of A, pk of B)"""
    with pg_db.transaction() as conn:
        a, b = scope(conn, "proj_a"), scope(conn, "proj_b")
        record_audits(
            conn,
            [
                (a, entry("mem_1", at=10.5)),
                (a, entry("mem_1", AuditAction.UPDATED, at=11.0, before={"title": "old"})),
                (a, entry("mem_2", actor="Codex", at=12.0)),
                (b, entry("mem_3", actor="gui", at=13.0)),
            ],
        )
    with pg_db.transaction() as conn:  # a second batch: chained to the first's head
        record_audits(conn, [(a, entry("mem_1", AuditAction.REMOVED, actor="gui", at=14.0))])
    return a, b


def test_events_are_chained_in_order_and_the_chain_checks_out(
    pg_db: PgDatabase, history: tuple[int, int]
) -> None:
    rows = pg_db.read(
        lambda c: c.execute("SELECT seq, before, after, nonce FROM audit ORDER BY seq").fetchall()
    )
    assert [row[0] for row in rows] == [1, 2, 3, 4, 5]
    assert rows[0][1] is None
    # SQLite's serialization exactly: ensure_ascii=False, json.dumps' separators
    assert rows[0][2] == json.dumps(
        {"title": "about mem_1", "content": "naïve café ✓"}, ensure_ascii=False
    )
    assert rows[1][1] == '{"title": "old"}'
    assert all(len(row[3]) == 32 for row in rows)
    broken, last = pg_db.read_snapshot(lambda c: check_chain(c))
    assert broken is None
    assert pg_db.read(head) == (5, last)
    assert last != GENESIS
    assert pg_db.read_snapshot(lambda c: check_chain(c, 2)) == (None, last)  # the newest two only


def test_an_empty_history_checks_out_at_genesis(pg_db: PgDatabase) -> None:
    assert pg_db.read_snapshot(lambda c: check_chain(c)) == (None, GENESIS)
    assert pg_db.read(head) == (0, GENESIS)
    with pg_db.transaction() as conn:
        record_audits(conn, [])
    assert pg_db.read(head) == (0, GENESIS)


def test_a_tombstone_is_the_one_update_let_through_and_the_chain_still_checks_out(
    pg_db: PgDatabase, history: tuple[int, int]
) -> None:
    with pg_db.transaction() as conn:
        assert tombstone_history(conn, "mem_1", TOMBSTONE) == 3
    rows = pg_db.read(
        lambda c: c.execute(
            "SELECT before, after, nonce FROM audit WHERE memory_id = 'mem_1'"
        ).fetchall()
    )
    assert rows == [(None, json.dumps(TOMBSTONE), None)] * 3
    assert pg_db.read_snapshot(lambda c: check_chain(c))[0] is None


@pytest.mark.parametrize(
    "statement",
    [
        'UPDATE audit SET after = \'{"title": "forged"}\' WHERE seq = 1',
        "UPDATE audit SET actor = 'someone else' WHERE seq = 1",
        # a tombstone that also changes a field the chain covers
        "UPDATE audit SET before = NULL, nonce = NULL, at = 0, "
        'after = \'{"erased_at": 1.5, "erased_by": "gui"}\' WHERE seq = 1',
        # a tombstone with a third key (room for content)
        "UPDATE audit SET before = NULL, nonce = NULL, "
        'after = \'{"erased_at": 1.5, "erased_by": "gui", "content": "x"}\' WHERE seq = 1',
        # a tombstone that keeps its nonce (the salt that confirms a guess)
        "UPDATE audit SET before = NULL, "
        'after = \'{"erased_at": 1.5, "erased_by": "gui"}\' WHERE seq = 1',
        "DELETE FROM audit WHERE seq = 5",
        "DELETE FROM audit",
    ],
)
def test_any_other_update_and_every_delete_is_refused(
    pg_db: PgDatabase, history: tuple[int, int], statement: str
) -> None:
    with (
        pytest.raises(StorageError, match="the audit history is append-only"),
        pg_db.transaction() as conn,
    ):
        conn.execute(statement)
    assert pg_db.read(lambda c: c.execute("SELECT count(*) FROM audit").fetchone()) == (5,)
    assert pg_db.read_snapshot(lambda c: check_chain(c))[0] is None


def test_an_event_changed_behind_the_trigger_is_named(
    pg_url: str, pg_db: PgDatabase, history: tuple[int, int]
) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:  # a superuser can
        conn.execute("ALTER TABLE audit DISABLE TRIGGER audit_is_append_only")
        conn.execute('UPDATE audit SET after = \'{"title": "forged"}\' WHERE seq = 2')
        conn.execute("ALTER TABLE audit ENABLE TRIGGER audit_is_append_only")
    broken, _ = pg_db.read_snapshot(lambda c: check_chain(c))
    assert broken is not None
    assert broken.seq == 2
    assert broken.describe() == (
        "audit event #2 (updated of mem_1) was changed after it was written "
        "(its content does not match its hash)"
    )
    assert pg_db.read_snapshot(lambda c: check_chain(c, 2))[0] is None  # older than the newest two


def test_a_deleted_event_breaks_the_link_after_it(
    pg_url: str, pg_db: PgDatabase, history: tuple[int, int]
) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("ALTER TABLE audit DISABLE TRIGGER audit_is_append_only")
        conn.execute("DELETE FROM audit WHERE seq = 3")
        conn.execute("ALTER TABLE audit ENABLE TRIGGER audit_is_append_only")
    broken, _ = pg_db.read_snapshot(lambda c: check_chain(c))
    assert broken is not None
    assert (broken.seq, broken.memory_id) == (4, "mem_3")
    assert "does not follow the event before it" in broken.reason


def test_a_history_moves_between_sqlite_and_postgresql_and_verifies_on_both(
    tmp_path: Path, pg_db: PgDatabase
) -> None:
    """The same rows, the same hashes: a chain written by SQLite checks out on
    PostgreSQL (and one written by PostgreSQL on SQLite), with the same head."""
    store = SqliteStore(tmp_path / "ltm.sqlite", tmp_path / "backups")
    try:
        store.ensure_project("proj_a", None, "a")
        with store.write() as txn:
            txn.record_all(
                [
                    entry("mem_1", at=1.0),
                    entry("mem_1", AuditAction.UPDATED, at=2.5, before={"tags": ["ünï"]}),
                    entry("mem_2", at=1e9 + 0.123456789, after={"n": 1.1, "z": None}),
                ]
            )
    finally:
        store.close()
    lite = sqlite3.connect(tmp_path / "ltm.sqlite")
    try:
        projects = lite.execute("SELECT pk, project_id, name, created_at FROM projects").fetchall()
        events = lite.execute(
            "SELECT seq, at, memory_id, project_pk, actor, action, before, after, nonce, "
            "content_hash, hash FROM audit ORDER BY seq"
        ).fetchall()
        sqlite_broken, sqlite_head = sqlite_chain.check_chain(lite)
    finally:
        lite.close()
    assert sqlite_broken is None
    with pg_db.transaction() as conn:
        conn.execute("DELETE FROM projects")  # the global scope the schema starts with
        conn.cursor().executemany(
            "INSERT INTO projects (pk, project_id, name, created_at) VALUES (%s, %s, %s, %s)",
            projects,
        )
        conn.cursor().executemany(
            "INSERT INTO audit (seq, at, memory_id, project_pk, actor, action, before, after, "
            "nonce, content_hash, hash) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            events,
        )
    assert pg_db.read_snapshot(lambda c: check_chain(c)) == (None, sqlite_head)
    a = next(pk for pk, project_id, _, _ in projects if project_id == "proj_a")
    with pg_db.transaction() as conn:  # PostgreSQL goes on from SQLite's head
        record_audits(conn, [(a, entry("mem_2", AuditAction.REMOVED, at=3.0))])
        assert tombstone_history(conn, "mem_1", TOMBSTONE) == 2
    broken, pg_head = pg_db.read_snapshot(lambda c: check_chain(c))
    assert broken is None
    rows = pg_db.read(
        lambda c: c.execute(
            "SELECT seq, at, memory_id, project_pk, actor, action, before, after, nonce, "
            "content_hash, hash FROM audit ORDER BY seq"
        ).fetchall()
    )
    back = sqlite3.connect(":memory:")
    try:
        back.execute(
            "CREATE TABLE audit (seq INTEGER PRIMARY KEY, at REAL, memory_id TEXT, "
            "project_pk INTEGER, actor TEXT, action TEXT, before TEXT, after TEXT, nonce TEXT, "
            "content_hash TEXT, hash TEXT)"
        )
        back.executemany(f"INSERT INTO audit VALUES ({', '.join('?' * 11)})", rows)
        assert sqlite_chain.check_chain(back) == (None, pg_head)
    finally:
        back.close()


def test_the_reads_of_the_history(pg_db: PgDatabase, history: tuple[int, int]) -> None:
    reads = PgAuditReads(pg_db, ScopeKeys())
    mem_1 = reads.memory_history("mem_1")
    assert [(e.seq, e.action) for e in mem_1] == [
        (1, AuditAction.CREATED),
        (2, AuditAction.UPDATED),
        (5, AuditAction.REMOVED),
    ]
    assert mem_1[1].before == {"title": "old"}
    assert mem_1[0].after == {"title": "about mem_1", "content": "naïve café ✓"}
    assert mem_1[0].project_id == "proj_a"
    assert mem_1[0].at == 10.5
    with pytest.raises(NotFound):
        reads.memory_history("mem_unknown")

    def seqs(
        project_id: str, limit: int, before_seq: int | None, actor: str | None, offset: int
    ) -> list[int]:
        return [e.seq for e in reads.project_history(project_id, limit, before_seq, actor, offset)]

    assert seqs("proj_a", 10, None, None, 0) == [5, 3, 2, 1]
    assert seqs("proj_a", 2, None, None, 1) == [3, 2]
    assert seqs("proj_a", 10, 3, None, 0) == [2, 1]
    assert seqs("proj_a", 10, None, "gui", 0) == [5]
    assert seqs("proj_b", 10, None, None, 0) == [4]
    assert seqs("proj_none", 10, None, None, 0) == []
    assert reads.count_history("proj_a", None) == 4
    assert reads.count_history("proj_a", "claude-code") == 2
    assert reads.count_history("proj_none", None) == 0
    # code-point order, as SQLite gives it: capitals first
    assert reads.history_actors("proj_a") == ["Codex", "claude-code", "gui"]
    assert reads.history_actors("proj_none") == []
    last = reads.last_events(["mem_1", "mem_2", "mem_3"], ["created", "updated"])
    assert [(e.memory_id, e.seq) for e in last] == [("mem_1", 2), ("mem_2", 3), ("mem_3", 4)]
    assert reads.last_events(["mem_1"], []) == []
    assert reads.last_events([], ["created"]) == []
    assert [e.seq for e in reads.events_after(2, 2)] == [3, 4]
    assert reads.events_after(5, 10) == []
    assert reads.last_event_seq() == 5


def test_the_history_of_an_erased_memory_still_reads(
    pg_db: PgDatabase, history: tuple[int, int]
) -> None:
    with pg_db.transaction() as conn:
        tombstone_history(conn, "mem_1", TOMBSTONE)
    events = PgAuditReads(pg_db, ScopeKeys()).memory_history("mem_1")
    assert [e.after for e in events] == [TOMBSTONE] * 3
    assert [e.before for e in events] == [None] * 3

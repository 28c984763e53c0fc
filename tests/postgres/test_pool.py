"""The pool's connections: checked before they are lent once idle a while, so a server
that dropped them costs a reconnect, not a failed call; the reads asked before every
search skip BEGIN and ROLLBACK."""

from __future__ import annotations

import psycopg
import pytest
from psycopg_pool import ConnectionPool

from ltm_desktop.postgres import database
from ltm_desktop.postgres.database import PgDatabase


def _backend(db: PgDatabase) -> int:
    return int(db.read(lambda c: c.execute("SELECT pg_backend_pid()").fetchone())[0])  # type: ignore[index]


def test_a_dropped_connection_idle_past_the_recheck_is_replaced(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = PgDatabase(pg_url, pool_size=1)
    try:
        first = _backend(db)
        with psycopg.connect(pg_url, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (first,))
        monkeypatch.setattr(database, "RECHECK_AFTER_S", 0.0)
        assert _backend(db) != first  # checked, found gone, replaced: the call succeeds
    finally:
        db.close()


def test_a_connection_used_just_now_is_lent_without_a_check(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = PgDatabase(pg_url, pool_size=1)
    checked: list[object] = []
    real = ConnectionPool.check_connection

    def check(conn: psycopg.Connection) -> None:
        checked.append(conn)
        real(conn)

    monkeypatch.setattr(ConnectionPool, "check_connection", check)
    try:
        _backend(db)  # a connection never lent before is checked
        checked.clear()
        _backend(db)
        _backend(db)
        assert checked == []
        monkeypatch.setattr(database, "RECHECK_AFTER_S", 0.0)
        _backend(db)
        assert len(checked) == 1
    finally:
        db.close()


def test_a_read_opens_no_transaction_and_a_snapshot_read_one_it_rolls_back(
    pg_db: PgDatabase,
) -> None:
    def status(conn: psycopg.Connection) -> tuple[int, bool]:
        conn.execute("SELECT 1").fetchone()
        return conn.info.transaction_status, conn.autocommit

    assert pg_db.read(status) == (psycopg.pq.TransactionStatus.IDLE, True)
    assert pg_db.read_snapshot(status) == (psycopg.pq.TransactionStatus.INTRANS, False)
    isolation = pg_db.read_snapshot(lambda c: c.execute("SHOW transaction_isolation").fetchone())
    assert isolation == ("repeatable read",)
    # the connections go back to the pool as they came: not in autocommit, default level
    assert pg_db.read(lambda c: c.execute("SHOW transaction_isolation").fetchone()) == (
        "read committed",
    )

    def after(conn: psycopg.Connection) -> tuple[bool, object]:
        return conn.autocommit, conn.isolation_level

    with pg_db._pool.connection() as conn:
        assert after(conn) == (False, None)


def test_the_driver_is_psycopgs_c_implementation() -> None:
    """pyproject asks for psycopg[binary]: the pure-Python fallback decodes every value
    through ctypes (it doubled MEMORY.md's regeneration on PostgreSQL)."""
    assert psycopg.pq.__impl__ in ("c", "binary")

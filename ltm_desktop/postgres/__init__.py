"""The PostgreSQL engine: the only package that imports psycopg.

Chosen by a database URL (``[store] url``, ``LTM_DESKTOP_DATABASE_URL`` or
``--database-url``); without one, nothing changes and SQLite (``ltm_desktop.store``) keeps
the data dir's database. Imported lazily by the composition root, never by a hook that
runs without a URL.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ltm_desktop.postgres.pg_store import PostgresStore

__all__ = ["open_postgres_store"]


def open_postgres_store(
    conninfo: str,
    *,
    backup_dir: Path,
    create: bool = True,
    connect_timeout: float = 5.0,
    lock_timeout_ms: int | None = None,
) -> PostgresStore:
    """Open (migrating as needed, creating the schema unless not ``create``) the database
    ``conninfo`` names (a ``postgresql://`` URL or libpq's ``key=value`` form).

    ``connect_timeout``: seconds to reach the server; ``lock_timeout_ms``: how long a write
    waits for another writer (None: the store's 10 s; an agent's hook passes less)."""
    # the engine's modules (and psycopg): only now
    from ltm_desktop.postgres.database import STATEMENT_TIMEOUT_MS, WRITE_LOCK_TIMEOUT_MS
    from ltm_desktop.postgres.pg_store import PostgresStore

    lock_wait, statements = WRITE_LOCK_TIMEOUT_MS, STATEMENT_TIMEOUT_MS
    if lock_timeout_ms is not None:  # a brief opening (a hook): no statement waits long
        lock_wait, statements = lock_timeout_ms, max(2_000, 2 * lock_timeout_ms)
    return PostgresStore(
        conninfo,
        backup_dir,
        create=create,
        connect_timeout=connect_timeout,
        lock_timeout_ms=lock_wait,
        statement_timeout_ms=statements,
    )

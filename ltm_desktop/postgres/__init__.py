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
) -> PostgresStore:
    """Open (migrating as needed, creating the schema unless not ``create``) the database
    ``conninfo`` names (a ``postgresql://`` URL or libpq's ``key=value`` form)."""
    from ltm_desktop.postgres.pg_store import PostgresStore  # the engine's modules: not before

    return PostgresStore(conninfo, backup_dir, create=create, connect_timeout=connect_timeout)

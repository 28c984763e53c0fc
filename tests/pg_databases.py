"""Empty ltm-desktop databases on a real PostgreSQL server, for tests, made fast.

The server is tests/pg_server.py's (``LTM_TEST_DATABASE_URL``, or a cluster of its own).
Making a database and its schema takes about half a second here, so a test process keeps the
databases it made: a test hands each one back (``PgDatabases.release``), it is emptied
(TRUNCATE, identities restarted: as new) and lent to the next test.
"""

from __future__ import annotations

import uuid

_TABLES = (
    "memory_index_erased, memory_index, memory_tags, memory_files, vector_models, audit, "
    "observations, proposals, extraction_runs, memories, projects"
)


def _with_dbname(url: str, name: str) -> str:
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    parts = conninfo_to_dict(url)
    parts["dbname"] = name
    return make_conninfo(**parts)


class PgDatabases:
    """The databases one test process made, lent out one test at a time."""

    def __init__(self, server: str) -> None:
        self._server = server
        self._idle: list[str] = []
        self._made: list[str] = []

    def take(self) -> str:
        """The URL of an empty database with the current schema."""
        if self._idle:
            return self._idle.pop()
        import psycopg

        name = f"ltm_test_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self._server, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}" TEMPLATE template0')
        url = _with_dbname(self._server, name)
        self._made.append(name)
        from ltm_desktop.postgres.database import PgDatabase

        PgDatabase(url).close()  # the schema, made once
        return url

    def release(self, url: str) -> None:
        """Empty the database (as new) and keep it for the next test."""
        import psycopg

        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("SET lock_timeout = '10s'")
            conn.execute(f"TRUNCATE {_TABLES} RESTART IDENTITY")
            conn.execute("UPDATE store_state SET version = 0")
            conn.execute("ALTER SEQUENCE memory_index_seq RESTART")
        self._idle.append(url)

    def drop_all(self) -> None:
        import psycopg

        with psycopg.connect(self._server, autocommit=True) as conn:
            for name in self._made:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        self._made.clear()
        self._idle.clear()

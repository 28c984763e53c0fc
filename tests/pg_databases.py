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
    "observations, proposals, extraction_runs, memories, project_paths, projects"
)


def _with_dbname(url: str, name: str) -> str:
    from psycopg.conninfo import make_conninfo

    return make_conninfo(url, dbname=name)


def to_url(conninfo: str) -> str:
    """A libpq ``key=value`` string (what ``take`` gives) as the ``postgresql://`` URL a
    person would type: what ``--database-url`` and ``LTM_DESKTOP_DATABASE_URL`` take."""
    from urllib.parse import quote

    from psycopg.conninfo import conninfo_to_dict

    parts = conninfo_to_dict(conninfo)
    user = quote(str(parts.get("user", "")), safe="")
    password = parts.get("password")
    login = f"{user}:{quote(str(password), safe='')}" if password else user
    host = str(parts.get("host", "127.0.0.1"))
    port = f":{parts['port']}" if parts.get("port") else ""
    return f"postgresql://{login}@{host}{port}/{quote(str(parts['dbname']), safe='')}"


# What a test may have changed besides rows (a dropped trigger, a replaced function, an
# index, a migration recorded): a database whose shape differs from a new one's is dropped, not lent again.
_SHAPE = """SELECT md5(string_agg(part, ';' ORDER BY part)) FROM (
    SELECT pg_get_triggerdef(t.oid) || t.tgenabled::text AS part FROM pg_trigger AS t
        WHERE NOT t.tgisinternal
    UNION ALL SELECT pg_get_functiondef(f.oid) FROM pg_proc AS f
        JOIN pg_namespace AS n ON n.oid = f.pronamespace WHERE n.nspname = 'public'
    UNION ALL SELECT indexdef FROM pg_indexes WHERE schemaname = 'public'
    UNION ALL SELECT table_name || '.' || column_name || ':' || data_type
        FROM information_schema.columns WHERE table_schema = 'public'
    UNION ALL SELECT 'migration ' || version FROM schema_migrations
) AS parts"""


class PgDatabases:
    """The databases one test process made, lent out one test at a time."""

    def __init__(self, server: str) -> None:
        self._server = server
        self._idle: list[str] = []
        self._made: list[str] = []
        self._shape: str | None = None

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
        shape = self._shape_of(url)
        if self._shape is None:
            self._shape = shape
        return url

    @staticmethod
    def _shape_of(url: str) -> str:
        import psycopg

        with psycopg.connect(url, autocommit=True) as conn:
            row = conn.execute(_SHAPE).fetchone()
        return str(row[0]) if row is not None else ""

    def release(self, url: str) -> None:
        """Empty the database (as new) and keep it for the next test; one whose shape a
        test changed is dropped."""
        import psycopg

        if self._shape_of(url) != self._shape:
            from psycopg.conninfo import conninfo_to_dict

            self._drop(str(conninfo_to_dict(url)["dbname"]))
            return

        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("SET lock_timeout = '10s'")
            conn.execute(f"TRUNCATE {_TABLES} RESTART IDENTITY")
            conn.execute("UPDATE store_state SET version = 0")
            conn.execute("ALTER SEQUENCE memory_index_seq RESTART")
            conn.execute(  # as the schema's first migration leaves it
                "INSERT INTO projects (project_id, path, name, created_at) "
                "VALUES ('global', NULL, 'Global', extract(epoch FROM now())::bigint)"
            )
        self._idle.append(url)

    def _drop(self, name: str) -> None:
        import psycopg

        with psycopg.connect(self._server, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if name in self._made:
            self._made.remove(name)

    def drop_all(self) -> None:
        import psycopg

        with psycopg.connect(self._server, autocommit=True) as conn:
            for name in self._made:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        self._made.clear()
        self._idle.clear()

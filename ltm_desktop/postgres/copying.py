"""PostgreSQL's side of ``engine.copying``: a database read out as the row stream, and an
empty database written in from one.

Both open the database as the store does first (``PgDatabase``: the server's version,
the schema migrated under its lock, a database of other tables refused, no password in
any message), then work on a connection of their own. The reader reads everything in one
``REPEATABLE READ READ ONLY`` transaction, a snapshot that writers working meanwhile do
not change, through server-side cursors. The writer holds the writer's advisory lock for
one transaction and writes each table with ``COPY``: memories and observations go
through a temporary table first, so that their ``search`` documents are made from the
same words as every write makes them (``fts_document``); vectors find their model's key
in ``vector_models``. At the end each identity and ``memory_index_seq`` move past the
copied keys, and a memory the stream gave no index row gets one; token sets stay NULL
for the backfill.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg import sql

from ltm_desktop.core.errors import StorageError
from ltm_desktop.engine.copying import (
    BATCH_ROWS,
    CONTENT_TABLES,
    EXTRACTION_RUNS,
    MEMORIES,
    MEMORY_VECTORS,
    OBSERVATIONS,
    PROJECTS,
    PROPOSALS,
    Rows,
    Table,
    TableWriter,
)
from ltm_desktop.engine.rows import decode_strings
from ltm_desktop.postgres.conn import Conn
from ltm_desktop.postgres.database import CONNECT_TIMEOUT, WRITER_LOCK, PgDatabase
from ltm_desktop.postgres.fts.document import (
    MEMORY_DOCUMENT_SQL,
    OBSERVATION_DOCUMENT_SQL,
    memory_document_params,
    observation_document_params,
)
from ltm_desktop.postgres.url import describe, scrubbed

_SELECT_VECTORS = (
    "SELECT i.memory_pk, i.seq, v.name, i.vector FROM memory_index AS i "
    "LEFT JOIN vector_models AS v ON v.pk = i.model_pk ORDER BY i.memory_pk"
)
# The values a search document is made from (``fts_document``), as the columns of a
# temporary table that takes memories' and observations' rows first.
_MEMORY_WORDS = tuple(
    f"w_{i}" for i, _ in enumerate(memory_document_params("", "", (), project_pk=0))
)
_OBSERVATION_WORDS = tuple(f"w_{i}" for i, _ in enumerate(observation_document_params("", "")))
_STAGED = {  # table -> (its temporary table, the columns that adds)
    MEMORIES.name: ("copy_memories", _MEMORY_WORDS),
    OBSERVATIONS.name: ("copy_observations", _OBSERVATION_WORDS),
    MEMORY_VECTORS.name: ("copy_vectors", ()),
}
_DOCUMENTS = {
    MEMORIES.name: MEMORY_DOCUMENT_SQL % _MEMORY_WORDS,
    OBSERVATIONS.name: OBSERVATION_DOCUMENT_SQL % _OBSERVATION_WORDS,
}
_IDENTITIES = (PROJECTS, MEMORIES, OBSERVATIONS, PROPOSALS, EXTRACTION_RUNS)


def _opened(conninfo: str, create: bool, connect_timeout: float) -> Conn:
    """A connection of its own, after the store's checks and migrations."""
    PgDatabase(conninfo, create=create, connect_timeout=connect_timeout, pool_size=1).close()
    try:
        return psycopg.connect(
            conninfo,
            connect_timeout=max(1, round(connect_timeout)),
            application_name="ltm-desktop migrate",
        )
    except psycopg.Error as exc:
        raise _failure(exc, conninfo) from exc


def _failure(exc: psycopg.Error, conninfo: str) -> StorageError:
    return StorageError(f"{describe(conninfo)}: {scrubbed(str(exc), conninfo)}")


class PgRows:
    """The rows of the ltm-desktop database ``conninfo`` names, as one read snapshot
    (``engine.copying.CopySource``)."""

    def __init__(self, conninfo: str, *, connect_timeout: float = CONNECT_TIMEOUT) -> None:
        self._conninfo = conninfo
        self._conn = _opened(conninfo, False, connect_timeout)
        self._conn.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
        self._conn.read_only = True
        try:
            self._conn.execute("SELECT count(*) FROM projects").fetchone()  # the snapshot
        except psycopg.Error as exc:
            self._conn.close()
            raise _failure(exc, conninfo) from exc
        self._cursors = itertools.count()

    @property
    def location(self) -> str:
        return describe(self._conninfo)

    @property
    def server_version(self) -> int:
        """The server's version number (150004 for 15.4): which pg_dump can dump it."""
        return int(self._conn.info.server_version)

    def count(self, table: Table) -> int:
        name = "memory_index" if table is MEMORY_VECTORS else table.name
        try:
            row = self._conn.execute(
                sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(name))
            ).fetchone()
        except psycopg.Error as exc:
            raise _failure(exc, self._conninfo) from exc
        return 0 if row is None else int(row[0])

    def batches(self, table: Table) -> Iterator[Rows]:
        if table is MEMORY_VECTORS:
            query = _SELECT_VECTORS
        else:
            query = f"SELECT {table.column_list} FROM {table.name} ORDER BY {table.order}"
        try:
            with self._conn.cursor(name=f"copy_{next(self._cursors)}") as cursor:
                cursor.itersize = BATCH_ROWS
                cursor.execute(query.encode("utf-8"))
                while batch := cursor.fetchmany(BATCH_ROWS):
                    yield batch
        except psycopg.Error as exc:
            raise _failure(exc, self._conninfo) from exc

    def close(self) -> None:
        self._conn.close()  # the read transaction is rolled back


def _staged_row(table: Table, row: tuple[Any, ...]) -> tuple[Any, ...]:
    """A memory's or an observation's row with the values its search document is made
    from."""
    if table is MEMORIES:
        tags, _ = decode_strings(row[7])
        return (*row, *memory_document_params(row[3], row[4], tags, project_pk=row[2]))
    if table is OBSERVATIONS:
        return (*row, *observation_document_params(row[5], row[6]))
    return row


class PgLoading:
    """A copy being written into an ltm-desktop PostgreSQL database
    (``engine.copying.Loading``)."""

    def __init__(self, conn: Conn) -> None:
        self._conn = conn

    def existing(self) -> dict[str, int]:
        found: dict[str, int] = {}
        for table in CONTENT_TABLES:
            row = self._conn.execute(
                sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(table.name))
            ).fetchone()
            found[table.name] = 0 if row is None else int(row[0])
        return found

    @contextmanager
    def table(self, table: Table) -> Iterator[TableWriter]:
        conn = self._conn
        name, columns = table.name, table.columns
        staged = _STAGED.get(table.name)
        if staged is not None:
            name, extra = staged
            conn.execute(
                f"CREATE TEMP TABLE {name} ON COMMIT DROP AS "
                f"SELECT {table.column_list} FROM {table.name} WITH NO DATA"
                if table is not MEMORY_VECTORS
                else f"CREATE TEMP TABLE {name} (memory_pk bigint, seq bigint, model text, "
                "vector bytea) ON COMMIT DROP"
            )
            for column in extra:
                conn.execute(f"ALTER TABLE {name} ADD COLUMN {column} text")
            columns = (*columns, *extra)
        elif table is PROJECTS:
            conn.execute("DELETE FROM project_paths")  # rows made before any content:
            conn.execute("DELETE FROM projects")  # replaced
        statement = sql.SQL("COPY {} ({}) FROM STDIN").format(
            sql.Identifier(name), sql.SQL(", ").join(map(sql.Identifier, columns))
        )
        with conn.cursor() as cursor, cursor.copy(statement) as copy:

            def write(rows: Rows) -> None:
                for row in rows:
                    copy.write_row(_staged_row(table, row))

            yield write
        if staged is not None:
            self._from_staging(table, name)

    def _from_staging(self, table: Table, staging: str) -> None:
        conn = self._conn
        if table is MEMORY_VECTORS:
            conn.execute(
                f"INSERT INTO vector_models (name) SELECT DISTINCT model FROM {staging} "
                "WHERE model IS NOT NULL ON CONFLICT (name) DO NOTHING"
            )
            conn.execute(
                "INSERT INTO memory_index (memory_pk, project_pk, seq, tokens, model_pk, vector) "
                "SELECT s.memory_pk, m.project_pk, s.seq, NULL, v.pk, s.vector "
                f"FROM {staging} AS s JOIN memories AS m ON m.pk = s.memory_pk "
                "LEFT JOIN vector_models AS v ON v.name = s.model"
            )
            return
        document = _DOCUMENTS[table.name]
        conn.execute(
            f"INSERT INTO {table.name} ({table.column_list}, search) "
            f"SELECT {table.column_list}, {document} FROM {staging} ORDER BY pk"
        )

    def finish(self) -> None:
        conn = self._conn
        for table in _IDENTITIES:  # the next row made gets a pk past the copied ones
            conn.execute(
                f"SELECT setval(pg_get_serial_sequence('{table.name}', 'pk'), "
                f"coalesce(max(pk), 0) + 1, false) FROM {table.name}"
            )
        conn.execute(
            "SELECT setval('memory_index_seq', greatest("
            "(SELECT max(seq) FROM memory_index), (SELECT max(seq) FROM memory_index_erased), "
            "(SELECT last_value FROM memory_index_seq), 1))"
        )
        conn.execute(
            "INSERT INTO memory_index (memory_pk, project_pk, seq) "
            "SELECT m.pk, m.project_pk, nextval('memory_index_seq') FROM memories AS m "
            "WHERE NOT EXISTS (SELECT 1 FROM memory_index AS i WHERE i.memory_pk = m.pk) "
            "ORDER BY m.pk"
        )
        conn.execute("UPDATE store_state SET version = version + 1 WHERE id = 1")


class PgTarget:
    """The ltm-desktop database ``conninfo`` names, to copy into
    (``engine.copying.CopyTarget``): its schema made if it has none."""

    def __init__(self, conninfo: str, *, connect_timeout: float = CONNECT_TIMEOUT) -> None:
        self._conninfo = conninfo
        self._conn = _opened(conninfo, True, connect_timeout)

    @property
    def location(self) -> str:
        return describe(self._conninfo)

    @contextmanager
    def loading(self) -> Iterator[PgLoading]:
        conn = self._conn
        try:
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (WRITER_LOCK,))
                yield PgLoading(conn)
            conn.execute("ANALYZE")  # the planner's statistics of the tables just filled
            conn.commit()
        except psycopg.Error as exc:
            raise _failure(exc, self._conninfo) from exc

    def discard(self) -> None:
        """The copy's transaction was rolled back; an empty schema made for it is kept
        (what any store opening the database makes)."""

    def close(self) -> None:
        self._conn.close()

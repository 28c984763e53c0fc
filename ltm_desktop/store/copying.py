"""SQLite's side of ``engine.copying``: a database read out as the row stream, and a new
database written in from one.

The reader opens the store once (so an older file is migrated, and what is not one of
ours is refused, as on any open), then reads everything in one read transaction: under
WAL, a snapshot that writers working meanwhile do not change. The writer fills a
database just made, in one ``BEGIN IMMEDIATE`` transaction, then builds what SQLite
derives from the rows: each scope's search table, the observations' search table, and an
index row for any memory the stream gave none (token sets stay empty: the backfill's).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ltm_desktop.core.records import GLOBAL_PROJECT_ID
from ltm_desktop.engine.copying import (
    BATCH_ROWS,
    CONTENT_TABLES,
    MEMORY_VECTORS,
    PROJECTS,
    Rows,
    Table,
    TableWriter,
)
from ltm_desktop.store.audit.anchor import anchor_path
from ltm_desktop.store.connection import connect, describe_error, is_missing_or_empty, journals
from ltm_desktop.store.fts.indexing import reindex_scope
from ltm_desktop.store.fts.tables import create_memory_table
from ltm_desktop.store.observations import reindex_observations
from ltm_desktop.store.sqlite_store import open_store

# The stream's vector rows are memory_index rows (the token set left empty).
_SELECT_VECTORS = "SELECT memory_pk, seq, model, vector FROM memory_index ORDER BY memory_pk"
_INSERT_VECTOR = (
    "INSERT INTO memory_index (memory_pk, project_pk, seq, token_bits, model, vector) "
    "SELECT ?1, project_pk, ?2, NULL, ?3, ?4 FROM memories WHERE pk = ?1"
)
# A memory the stream gave no index row gets one after its scope's last seq (the backfill
# then finds it without a token set).
_MISSING_INDEX_ROWS = """INSERT INTO memory_index (memory_pk, project_pk, seq)
    SELECT m.pk, m.project_pk,
        coalesce((SELECT max(i.seq) FROM memory_index AS i WHERE i.project_pk = m.project_pk), 0)
        + row_number() OVER (PARTITION BY m.project_pk ORDER BY m.pk)
    FROM memories AS m
    WHERE NOT EXISTS (SELECT 1 FROM memory_index AS i WHERE i.memory_pk = m.pk)"""


class SqliteRows:
    """The rows of the SQLite database at ``path`` as one read snapshot
    (``engine.copying.CopySource``)."""

    def __init__(self, path: Path, backup_dir: Path) -> None:
        open_store(path, backup_dir, create=False).close()  # migrated, or refused
        self._path = path
        self._conn = connect(path, readonly=True)
        try:
            self._conn.execute("BEGIN")
            self._conn.execute("SELECT count(*) FROM projects").fetchone()  # the snapshot
        except sqlite3.Error as exc:
            self._conn.close()
            raise describe_error(exc, path) from exc

    @property
    def location(self) -> str:
        return str(self._path)

    def _select(self, table: Table) -> str:
        if table is MEMORY_VECTORS:
            return _SELECT_VECTORS
        return f"SELECT {table.column_list} FROM {table.name} ORDER BY {table.order}"

    def count(self, table: Table) -> int:
        name = "memory_index" if table is MEMORY_VECTORS else table.name
        try:
            return int(self._conn.execute(f"SELECT count(*) FROM {name}").fetchone()[0])
        except sqlite3.Error as exc:
            raise describe_error(exc, self._path) from exc

    def batches(self, table: Table) -> Iterator[Rows]:
        try:
            cursor = self._conn.execute(self._select(table))
            while batch := cursor.fetchmany(BATCH_ROWS):
                yield batch
        except sqlite3.Error as exc:
            raise describe_error(exc, self._path) from exc

    def close(self) -> None:
        try:
            self._conn.execute("ROLLBACK")
        except sqlite3.Error:
            pass
        self._conn.close()


class SqliteLoading:
    """A copy being written into a new SQLite database (``engine.copying.Loading``)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def existing(self) -> dict[str, int]:
        return {
            table.name: int(self._conn.execute(f"SELECT count(*) FROM {table.name}").fetchone()[0])
            for table in CONTENT_TABLES
        }

    @contextmanager
    def table(self, table: Table) -> Iterator[TableWriter]:
        if table is MEMORY_VECTORS:
            sql = _INSERT_VECTOR
        else:
            # A new database has its global scope already, under a pk of its own: the
            # copy's projects replace it (their pks are in the audit chain's hashes).
            verb = "INSERT OR REPLACE" if table is PROJECTS else "INSERT"
            if table is PROJECTS:  # paths recorded before any content go with their rows
                self._conn.execute("DELETE FROM project_paths")
            marks = ", ".join("?" * len(table.columns))
            sql = f"{verb} INTO {table.name} ({table.column_list}) VALUES ({marks})"

        def write(rows: Rows) -> None:
            self._conn.executemany(sql, rows)

        yield write

    def finish(self) -> None:
        conn = self._conn
        conn.execute(  # a copy of a database that never had the global scope
            "INSERT INTO projects (project_id, path, name, created_at) "
            "SELECT ?, NULL, 'Global', strftime('%s', 'now') "
            "WHERE NOT EXISTS (SELECT 1 FROM projects WHERE project_id = ?)",
            (GLOBAL_PROJECT_ID, GLOBAL_PROJECT_ID),
        )
        for (project_pk,) in conn.execute("SELECT pk FROM projects ORDER BY pk").fetchall():
            create_memory_table(conn, project_pk)
            reindex_scope(conn, project_pk)
        reindex_observations(conn)
        conn.execute(_MISSING_INDEX_ROWS)


class SqliteTarget:
    """A new SQLite database at ``path`` to copy into (``engine.copying.CopyTarget``):
    made (the current schema) when this is built."""

    def __init__(self, path: Path, backup_dir: Path) -> None:
        self._made = is_missing_or_empty(path)
        open_store(path, backup_dir, create=True).close()  # the schema, and its audit anchor
        self._path = path

    @property
    def location(self) -> str:
        return str(self._path)

    @contextmanager
    def loading(self) -> Iterator[SqliteLoading]:
        try:
            conn = connect(self._path)
        except sqlite3.Error as exc:
            raise describe_error(exc, self._path) from exc
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield SqliteLoading(conn)
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            raise describe_error(exc, self._path) from exc
        finally:
            conn.close()

    def discard(self) -> None:
        """Remove the database this made (a failed copy leaves it empty), with its
        journals and audit anchor, so that the data dir has none again."""
        if not self._made:
            return
        for path in (self._path, *journals(self._path), anchor_path(self._path)):
            path.unlink(missing_ok=True)

    def close(self) -> None:
        """Nothing stays open between loads."""

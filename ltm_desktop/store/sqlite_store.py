"""SqliteStore: the SQLite implementation of ``core.backend.MemoryStore``.

One writer connection, guarded by a lock, runs every write as a ``BEGIN
IMMEDIATE`` transaction; each reading thread gets its own connection, so reads
proceed concurrently under WAL. sqlite3 errors leave this module as the core's
typed ``StorageError``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TypeVar

from ltm_desktop.core.backend import SearchRepair, StoreHealth, Verification, WriteTxn
from ltm_desktop.core.errors import NotFound, echoed
from ltm_desktop.core.observations import ObservationPayload
from ltm_desktop.core.records import (
    GLOBAL_PROJECT_ID,
    ListQuery,
    Memory,
    Observation,
    Project,
    SearchFilter,
)
from ltm_desktop.core.search.query import ParsedQuery
from ltm_desktop.store import erasing, observations
from ltm_desktop.store import memory_reads as reads
from ltm_desktop.store import memory_writes as writes
from ltm_desktop.store.audit import verify
from ltm_desktop.store.audit.reads import AuditReads
from ltm_desktop.store.checkpointer import Checkpointer
from ltm_desktop.store.connection import (
    BUSY_TIMEOUT_MS,
    SYNCHRONOUS,
    describe_error,
)
from ltm_desktop.store.count_reads import CountReads
from ltm_desktop.store.fts import search
from ltm_desktop.store.fts.damage import SearchDamage
from ltm_desktop.store.fts.tables import OBSERVATION_TABLE, MemoryTables
from ltm_desktop.store.inbox_reads import InboxReads
from ltm_desktop.store.migrations import MIGRATIONS, Migration
from ltm_desktop.store.opening import open_database
from ltm_desktop.store.overview_reads import OverviewQueries
from ltm_desktop.store.readers import Readers
from ltm_desktop.store.vectors import reads as vector_reads
from ltm_desktop.store.vectors.scope_index import ScopeTokenSets
from ltm_desktop.store.vectors.storage import VectorIndex
from ltm_desktop.store.write_gate import WriteGate
from ltm_desktop.store.write_txn import SqliteWriteTxn

T = TypeVar("T")


class SqliteStore(AuditReads, InboxReads, CountReads, OverviewQueries):
    """Memories, observations and their history in one SQLite file."""

    def __init__(
        self,
        path: Path,
        backup_dir: Path,
        migrations: Sequence[Migration] = MIGRATIONS,
        *,
        synchronous: str = SYNCHRONOUS,
        busy_timeout_ms: int = BUSY_TIMEOUT_MS,
        create: bool = True,
    ) -> None:
        """Refuses what ``opening.open_database`` refuses, before serving anything.

        ``busy_timeout_ms``: how long a write waits for another process's lock.
        ``create``: make a new database if there is none (False: refuse, for agent hooks).
        """
        self._path = path
        self._synchronous = synchronous.lower()
        opened = open_database(
            path, backup_dir, migrations, synchronous, busy_timeout_ms, create=create
        )
        self._writer = opened.writer
        self.migration_backup = opened.migration_backup
        self._schema_version = opened.schema_version
        self._guard = opened.guard
        self._token_sets = ScopeTokenSets()
        self._vectors = VectorIndex()
        self._tables = MemoryTables()
        self._anchor = opened.anchor
        self._checkpointer = Checkpointer(
            path,
            synchronous=synchronous,
            still_ours=lambda: self._guard.look().lost is None,
            durable=self._anchor.before_checkpoint,
        )
        self._checkpointer.note_write()  # a first checkpoint anchors a data dir without one
        self._gate = WriteGate(
            self._writer, path, self._guard, self._anchor, self._token_sets.reset
        )
        self._gate.checkpointer = self._checkpointer
        self._readers = Readers(path, self._guard)
        self._project_pks: dict[str, int] = {}
        self._search_damage = SearchDamage(self._on_writer, self._write, backup_dir)

    # -- plumbing ---------------------------------------------------------

    @property
    def location(self) -> str:
        return str(self._path)

    @property
    def schema_version(self) -> int:
        return self._schema_version

    def health(self) -> StoreHealth:
        lost = self._guard.look().lost
        problems = (
            str(self._guard.error()) if lost is not None else None,
            self._anchor.problem,
            self._checkpointer.problem(),
            self._gate.failure,
            *self._search_damage.problems(),
        )
        return StoreHealth(tuple(p for p in problems if p), self._synchronous)

    def close(self) -> None:
        with self._gate.lock:
            if self._gate.closed:
                return
            self._gate.closed = True
            self._checkpointer.stop()
            self._readers.close()
            try:
                self._writer.execute("PRAGMA optimize")
            except sqlite3.Error:
                pass
            ours, noted = self._guard.look().lost is None, self._anchor.noted()
            self._writer.close()
            self._anchor.closed(ours, self._path, noted)

    def data_version(self) -> int:
        with self._gate.lock:
            try:
                return int(self._writer.execute("PRAGMA data_version").fetchone()[0])
            except sqlite3.Error as exc:
                raise describe_error(exc, self._path) from exc

    def _read(self, work: Callable[[sqlite3.Connection], T]) -> T:
        return self._readers.read(work)

    def _write(self) -> AbstractContextManager[sqlite3.Connection]:
        """One write transaction (``write_gate``)."""
        return self._gate.transaction()

    def _on_writer(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """``work`` on the writer between writes, each statement its own (FTS5's checks)."""
        with self._gate.lock:
            self._gate.check_open()
            try:
                return work(self._writer)
            except sqlite3.Error as exc:
                raise describe_error(exc, self._path) from exc

    def _pk(self, conn: sqlite3.Connection, project_id: str) -> int | None:
        """The project's key. Only committed rows are cached: readers share the cache, and
        must never be sent to a project (or its table) that a transaction may roll back."""
        pk = self._project_pks.get(project_id)
        if pk is None:
            row = conn.execute(
                "SELECT pk FROM projects WHERE project_id = ?", (project_id,)
            ).fetchone()
            if row is None:
                return None
            pk = int(row[0])
            if not conn.in_transaction:
                self._project_pks[project_id] = pk
        return pk

    def _pks(self, conn: sqlite3.Connection, project_ids: Sequence[str]) -> list[int]:
        pks = (self._pk(conn, project_id) for project_id in project_ids)
        return [pk for pk in pks if pk is not None]

    def _read_scope(
        self, project_id: str, read: Callable[[sqlite3.Connection, int], T], empty: T
    ) -> T:
        """``read`` with the scope's key, on a reader; ``empty`` for a scope the database
        has no row for (nothing was ever written to it)."""

        def work(conn: sqlite3.Connection) -> T:
            pk = self._pk(conn, project_id)
            return empty if pk is None else read(conn, pk)

        return self._read(work)

    def _writable_pk(self, conn: sqlite3.Connection, project_id: str, now: float) -> int:
        pk = self._pk(conn, project_id)
        if pk is None:
            conn.execute(
                "INSERT INTO projects (project_id, path, name, created_at) VALUES (?, NULL, ?, ?)",
                (project_id, project_id, now),
            )
            pk = self._pk(conn, project_id)
        assert pk is not None
        self._tables.ensure(conn, pk)
        return pk

    # -- projects ---------------------------------------------------------

    def ensure_project(self, project_id: str, path: str | None, name: str) -> Project:
        known = self._read(
            lambda c: c.execute(
                "SELECT path, name FROM projects WHERE project_id = ?", (project_id,)
            ).fetchone()
        )
        if known is None or (path is not None and known[0] != path):
            with self._write() as conn:
                conn.execute(
                    "INSERT INTO projects (project_id, path, name, created_at) "
                    "VALUES (?, ?, ?, strftime('%s', 'now')) ON CONFLICT (project_id) "
                    "DO UPDATE SET path = excluded.path, name = excluded.name",
                    (project_id, path, name),
                )
        return self.get_project(project_id)

    def get_project(self, project_id: str) -> Project:
        row = self._read(
            lambda c: c.execute(
                "SELECT project_id, path, name, created_at FROM projects WHERE project_id = ?",
                (project_id,),
            ).fetchone()
        )
        if row is None:
            raise NotFound(f"no project has the id {echoed(project_id)}")
        return Project(*row)

    def list_projects(self) -> list[Project]:
        rows = self._read(
            lambda c: c.execute(
                "SELECT project_id, path, name, created_at FROM projects "
                "ORDER BY project_id != ?, name COLLATE NOCASE",
                (GLOBAL_PROJECT_ID,),
            ).fetchall()
        )
        return [Project(*row) for row in rows]

    def active_counts(self, now: float) -> dict[str, int]:
        def work(conn: sqlite3.Connection) -> dict[str, int]:
            names = dict(conn.execute("SELECT pk, project_id FROM projects").fetchall())
            return {names[pk]: n for pk, n in reads.active_counts(conn, now).items()}

        return self._read(work)

    # -- memory writes ----------------------------------------------------

    @contextmanager
    def write(self) -> Iterator[WriteTxn]:
        """A unit of work (``core.backend.WriteTxn``) in one ``BEGIN IMMEDIATE``
        transaction: the core decides and writes inside it, atomically."""
        with self._write() as conn:
            txn = SqliteWriteTxn(
                conn,
                pk_of=self._pk,
                writable_pk=self._writable_pk,
                tables=self._tables,
                token_sets=self._token_sets,
            )
            yield txn
            txn.finish()

    def verify(self, quick: bool) -> Verification:
        found = self._read(lambda conn: verify.verify(conn, quick, self._anchor.path))
        searches = () if quick else tuple(self._search_damage.verify())
        return replace(found, problems=found.problems + searches)

    def repair_search(self) -> SearchRepair:
        with self._gate.lock:
            return self._search_damage.repair()

    def scrub(self) -> str | None:
        with self._gate.lock:
            try:
                return erasing.scrub(self._writer)
            except sqlite3.Error as exc:
                return str(describe_error(exc, self._path))

    def reinforce(self, uses: dict[str, tuple[int, float, float]]) -> None:
        if uses:
            with self._write() as conn:
                writes.reinforce(conn, uses)

    # -- memory reads -----------------------------------------------------

    def get_memory(self, memory_id: str) -> Memory:
        return self._read(lambda c: writes.load_memory(c, memory_id)[2])

    def get_memories(self, memory_ids: Sequence[str]) -> list[Memory]:
        return self._read(lambda c: reads.get_memories(c, list(memory_ids)))

    def list_memories(self, project_id: str, query: ListQuery, now: float) -> list[Memory]:
        return self._read_scope(
            project_id, lambda c, pk: reads.list_memories(c, pk, query, now), []
        )

    def count_memories(self, project_id: str, query: ListQuery, now: float) -> int:
        return self._read_scope(
            project_id, lambda c, pk: reads.count_memories(c, pk, query, now), 0
        )

    def top_memories(self, project_id: str, importance: int, n: int, now: float) -> list[Memory]:
        return self._read_scope(
            project_id, lambda c, pk: reads.top_memories(c, pk, importance, n, now), []
        )

    def stale_memories(
        self, project_id: str, max_importance: int, cutoff: float, now: float
    ) -> list[Memory]:
        return self._read_scope(
            project_id, lambda c, pk: reads.stale_memories(c, pk, max_importance, cutoff, now), []
        )

    def memories_naming(
        self, project_ids: Sequence[str], path: str | None, limit: int, now: float
    ) -> list[Memory]:
        return self._read(
            lambda c: reads.memories_naming(c, self._pks(c, project_ids), path, limit, now)
        )

    def search_memories(
        self,
        project_ids: Sequence[str],
        query: ParsedQuery,
        limit: int,
        now: float,
        where: SearchFilter | None = None,
    ) -> list[search.MemoryHit]:
        searched: list[str] = []  # the tables searched, to tell why a search failed

        def work(conn: sqlite3.Connection) -> list[search.MemoryHit]:
            pks = self._pks(conn, project_ids)
            searched[:] = [name for _, name in self._tables.existing(conn, pks)]
            hits = search.search_memories(conn, searched, query, limit, now, where)
            if where is not None and where.include_disabled:
                hits += search.removed_matches(conn, pks, query, limit, where)
            return hits

        return self._search_damage.searched(lambda: self._read(work), searched)

    def search_vectors(
        self,
        project_ids: Sequence[str],
        model: str,
        vector: bytes,
        limit: int,
        now: float,
        min_score: float = -1.0,
        where: SearchFilter | None = None,
        centre: float | None = None,
    ) -> list[tuple[Memory, float]]:
        def work(conn: sqlite3.Connection) -> list[tuple[Memory, float]]:
            pks = self._pks(conn, project_ids)
            nearest = vector_reads.Nearest(model, vector, limit, min_score, centre)
            return vector_reads.search_vectors(conn, self._vectors, pks, nearest, now, where)

        return self._read(work)

    def index_version(self, project_ids: Sequence[str]) -> int:
        return self._read(lambda c: vector_reads.index_version(c, self._pks(c, project_ids)))

    def unindexed(self, model: str, after_id: str, limit: int) -> list[Memory]:
        return self._read(lambda c: vector_reads.unindexed(c, model, after_id, limit))

    def index_progress(self, model: str) -> tuple[int, int]:
        return self._read(lambda c: vector_reads.index_progress(c, model))

    def scope_counts(
        self, project_id: str, max_importance: int, cutoff: float, now: float
    ) -> dict[str, int]:
        return self._read_scope(
            project_id,
            lambda c, pk: reads.scope_counts(c, pk, max_importance, cutoff, now),
            dict.fromkeys(("active", "disabled", "expired", "stale", "observations"), 0),
        )

    # -- observations -----------------------------------------------------

    def add_observation(
        self, project_id: str, payload: ObservationPayload, actor: str, now: float
    ) -> Observation:
        with self._write() as conn:
            pk = self._writable_pk(conn, project_id, now)
            return observations.insert_observation(conn, pk, project_id, payload, actor, now)

    def list_observations(
        self, project_id: str, limit: int, offset: int, session: str | None
    ) -> list[Observation]:
        return self._read_scope(
            project_id, lambda c, pk: reads.list_observations(c, pk, limit, offset, session), []
        )

    def count_observations(self, project_id: str, session: str | None) -> int:
        return self._read_scope(
            project_id, lambda c, pk: reads.count_observations(c, pk, session), 0
        )

    def observation_sessions(self, project_id: str, limit: int) -> list[str]:
        return self._read_scope(
            project_id, lambda c, pk: reads.observation_sessions(c, pk, limit), []
        )

    def search_observations(
        self, project_ids: Sequence[str], query: ParsedQuery, limit: int
    ) -> list[search.ObservationHit]:
        def work(c: sqlite3.Connection) -> list[search.ObservationHit]:
            return search.search_observations(c, self._pks(c, project_ids), query, limit)

        return self._search_damage.searched(lambda: self._read(work), [OBSERVATION_TABLE])

    # -- the review inbox and extraction runs -------------------------------

    # -- forgetting observations ----------------------------------------------

    def get_observation(self, observation_id: str) -> Observation:
        return self._read(lambda c: observations.load_observation(c, observation_id)[1])

    def forget_observation(
        self, observation_id: str, actor: str, now: float
    ) -> tuple[Observation, bool]:
        with self._write() as conn:
            return observations.forget_observation(conn, observation_id, actor, now)


def open_store(
    db_path: Path,
    backup_dir: Path,
    *,
    synchronous: str = SYNCHRONOUS,
    busy_timeout_ms: int = BUSY_TIMEOUT_MS,
    create: bool = True,
) -> SqliteStore:
    """Open (migrating as needed, creating unless not ``create``) the database at ``db_path``."""
    return SqliteStore(
        db_path, backup_dir, synchronous=synchronous, busy_timeout_ms=busy_timeout_ms, create=create
    )

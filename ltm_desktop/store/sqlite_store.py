"""SqliteStore: the SQLite implementation of ``core.backend.MemoryStore``.

It is put together from parts that receive what they need when they are built: the
open database (``database``: its connections, caches, health and closing), the scoped
reader it hands out (``scoped_reader``: reads by scope, and the scopes' keys), the read
groups built on that reader (``audit.reads``, ``inbox_reads``, ``count_reads``,
``overview_reads``), and a unit of work per write (``write_txn``). Each method below
is one of the protocol's: it runs its SQL (``memory_reads``, ``memory_writes``,
``observations``, ``fts.search``, ``vectors.reads``) on a reader or in a write
transaction, or hands the question to its read group.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from ltm_desktop.core.backend import MemoryStore, SearchRepair, StoreHealth, Verification, WriteTxn
from ltm_desktop.core.change_feed import ChangeFeed, PollingChangeFeed
from ltm_desktop.core.errors import NotFound, echoed
from ltm_desktop.core.inbox.proposals import ExtractionRun, Proposal
from ltm_desktop.core.observations import ObservationPayload
from ltm_desktop.core.projects.paths import ProjectPath
from ltm_desktop.core.records import (
    GLOBAL_PROJECT_ID,
    AuditEvent,
    ListQuery,
    Memory,
    Observation,
    Project,
    SearchFilter,
)
from ltm_desktop.core.search.query import ParsedQuery
from ltm_desktop.store import memory_reads as reads
from ltm_desktop.store import memory_writes as writes
from ltm_desktop.store import observations, project_paths
from ltm_desktop.store.audit.reads import AuditReads
from ltm_desktop.store.connection import BUSY_TIMEOUT_MS, SYNCHRONOUS
from ltm_desktop.store.count_reads import CountReads
from ltm_desktop.store.database import SqliteDatabase
from ltm_desktop.store.fts import search
from ltm_desktop.store.fts.tables import OBSERVATION_TABLE
from ltm_desktop.store.inbox_reads import InboxReads
from ltm_desktop.store.migrations import MIGRATIONS, Migration
from ltm_desktop.store.overview_reads import OverviewQueries
from ltm_desktop.store.vectors import reads as vector_reads
from ltm_desktop.store.write_txn import SqliteWriteTxn


class SqliteStore:
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
        self._db = SqliteDatabase(
            path,
            backup_dir,
            migrations,
            synchronous=synchronous,
            busy_timeout_ms=busy_timeout_ms,
            create=create,
        )
        self.migration_backup = self._db.migration_backup
        self._reader = self._db.reader
        self._audit = AuditReads(self._reader)
        self._inbox = InboxReads(self._reader)
        self._counts = CountReads(self._reader)
        self._overview = OverviewQueries(self._reader)

    # -- the database (``database``) -------------------------------------------

    @property
    def location(self) -> str:
        return str(self._db.path)

    @property
    def schema_version(self) -> int:
        return self._db.schema_version

    def health(self) -> StoreHealth:
        return self._db.health()

    def close(self) -> None:
        self._db.close()

    def data_version(self) -> int:
        return self._db.data_version()

    def change_feed(self) -> ChangeFeed:
        """Another process's commit moves ``PRAGMA data_version``: polled, a pragma a time."""
        return PollingChangeFeed(self.data_version)

    def verify(self, quick: bool) -> Verification:
        return self._db.verify(quick)

    def repair_search(self) -> SearchRepair:
        return self._db.repair_search()

    def scrub(self) -> str | None:
        return self._db.scrub()

    # -- projects ---------------------------------------------------------

    def ensure_project(self, project_id: str, path: str | None, name: str) -> Project:
        known = self._reader.read(
            lambda c: c.execute(
                "SELECT path, name FROM projects WHERE project_id = ?", (project_id,)
            ).fetchone()
        )
        if known is None or (path is not None and known[0] != path):
            with self._db.transaction() as conn:
                conn.execute(
                    "INSERT INTO projects (project_id, path, name, created_at) "
                    "VALUES (?, ?, ?, strftime('%s', 'now')) ON CONFLICT (project_id) "
                    "DO UPDATE SET path = excluded.path, name = excluded.name",
                    (project_id, path, name),
                )
        return self.get_project(project_id)

    def get_project(self, project_id: str) -> Project:
        row = self._reader.read(
            lambda c: c.execute(
                "SELECT project_id, path, name, created_at FROM projects WHERE project_id = ?",
                (project_id,),
            ).fetchone()
        )
        if row is None:
            raise NotFound(f"no project has the id {echoed(project_id)}")
        return Project(*row)

    def list_projects(self) -> list[Project]:
        rows = self._reader.read(
            lambda c: c.execute(
                "SELECT project_id, path, name, created_at FROM projects "
                "ORDER BY project_id != ?, name COLLATE NOCASE",
                (GLOBAL_PROJECT_ID,),
            ).fetchall()
        )
        return [Project(*row) for row in rows]

    def active_counts(self, now: float) -> dict[str, int]:
        return self._counts.active_counts(now)

    def new_counts(self, since: float, now: float) -> dict[str, int]:
        return self._counts.new_counts(since, now)

    def stale_counts(self, max_importance: int, cutoff: float, now: float) -> dict[str, int]:
        return self._counts.stale_counts(max_importance, cutoff, now)

    # -- projects' paths (core.projects.paths) ----------------------------

    def path_owner(self, machine: str, path: str) -> ProjectPath | None:
        return self._reader.read(lambda c: project_paths.path_owner(c, machine, path))

    def record_path(
        self, project_id: str, machine: str, path: str, now: float, *, pinned: bool = False
    ) -> None:
        with self._db.transaction() as conn:
            project_paths.record_path(conn, project_id, machine, path, now, pinned)

    def project_paths(self, project_id: str) -> list[ProjectPath]:
        return self._reader.read(lambda c: project_paths.project_paths(c, project_id))

    def machine_paths(self, machine: str) -> list[ProjectPath]:
        return self._reader.read(lambda c: project_paths.machine_paths(c, machine))

    def move_observations(self, source: str, target: str) -> int:
        with self._db.transaction() as conn:
            return project_paths.move_observations(conn, source, target)

    # -- memory writes ----------------------------------------------------

    @contextmanager
    def write(self) -> Iterator[WriteTxn]:
        """A unit of work (``core.backend.WriteTxn``) in one ``BEGIN IMMEDIATE``
        transaction: the core decides and writes inside it, atomically."""
        with self._db.transaction() as conn:
            txn = SqliteWriteTxn(
                conn,
                pk_of=self._reader.pk,
                writable_pk=self._db.writable_pk,
                tables=self._db.tables,
                token_sets=self._db.token_sets,
            )
            yield txn
            txn.finish()

    def reinforce(self, uses: dict[str, tuple[int, float, float]]) -> None:
        if uses:
            with self._db.transaction() as conn:
                writes.reinforce(conn, uses)

    # -- memory reads -----------------------------------------------------

    def get_memory(self, memory_id: str) -> Memory:
        return self._reader.read(lambda c: writes.load_memory(c, memory_id)[2])

    def get_memories(self, memory_ids: Sequence[str]) -> list[Memory]:
        return self._reader.read(lambda c: reads.get_memories(c, list(memory_ids)))

    def list_memories(self, project_id: str, query: ListQuery, now: float) -> list[Memory]:
        return self._reader.read_scope(
            project_id, lambda c, pk: reads.list_memories(c, pk, query, now), []
        )

    def count_memories(self, project_id: str, query: ListQuery, now: float) -> int:
        return self._reader.read_scope(
            project_id, lambda c, pk: reads.count_memories(c, pk, query, now), 0
        )

    def top_memories(
        self, project_ids: Sequence[str], importances: Sequence[int], n: int, now: float
    ) -> list[Memory]:
        return self._reader.read(
            lambda c: reads.top_memories(c, self._reader.pks(c, project_ids), importances, n, now)
        )

    def stale_memories(
        self, project_id: str, max_importance: int, cutoff: float, now: float
    ) -> list[Memory]:
        return self._reader.read_scope(
            project_id, lambda c, pk: reads.stale_memories(c, pk, max_importance, cutoff, now), []
        )

    def memories_naming(
        self, project_ids: Sequence[str], path: str | None, limit: int, now: float
    ) -> list[Memory]:
        return self._reader.read(
            lambda c: reads.memories_naming(c, self._reader.pks(c, project_ids), path, limit, now)
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
            pks = self._reader.pks(conn, project_ids)
            searched[:] = [name for _, name in self._db.tables.existing(conn, pks)]
            hits = search.search_memories(conn, searched, query, limit, now, where)
            if where is not None and where.include_disabled:
                hits += search.removed_matches(conn, pks, query, limit, where)
            return hits

        return self._db.search_damage.searched(lambda: self._reader.read(work), searched)

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
            pks = self._reader.pks(conn, project_ids)
            nearest = vector_reads.Nearest(model, vector, limit, min_score, centre)
            return vector_reads.search_vectors(conn, self._db.vectors, pks, nearest, now, where)

        return self._reader.read(work)

    def index_version(self, project_ids: Sequence[str]) -> int:
        return self._reader.read(
            lambda c: vector_reads.index_version(c, self._reader.pks(c, project_ids))
        )

    def unindexed(self, model: str, after_id: str, limit: int) -> list[Memory]:
        return self._reader.read(lambda c: vector_reads.unindexed(c, model, after_id, limit))

    def index_progress(self, model: str) -> tuple[int, int]:
        return self._reader.read(lambda c: vector_reads.index_progress(c, model))

    def scope_counts(
        self, project_id: str, max_importance: int, cutoff: float, now: float
    ) -> dict[str, int]:
        return self._reader.read_scope(
            project_id,
            lambda c, pk: reads.scope_counts(c, pk, max_importance, cutoff, now),
            dict.fromkeys(("active", "disabled", "expired", "stale", "observations"), 0),
        )

    # -- observations -----------------------------------------------------

    def add_observation(
        self, project_id: str, payload: ObservationPayload, actor: str, now: float
    ) -> Observation:
        with self._db.transaction() as conn:
            pk = self._db.writable_pk(conn, project_id, now)
            return observations.insert_observation(conn, pk, project_id, payload, actor, now)

    def list_observations(
        self, project_id: str, limit: int, offset: int, session: str | None
    ) -> list[Observation]:
        return self._reader.read_scope(
            project_id, lambda c, pk: reads.list_observations(c, pk, limit, offset, session), []
        )

    def count_observations(self, project_id: str, session: str | None) -> int:
        return self._reader.read_scope(
            project_id, lambda c, pk: reads.count_observations(c, pk, session), 0
        )

    def observation_sessions(self, project_id: str, limit: int) -> list[str]:
        return self._reader.read_scope(
            project_id, lambda c, pk: reads.observation_sessions(c, pk, limit), []
        )

    def search_observations(
        self, project_ids: Sequence[str], query: ParsedQuery, limit: int
    ) -> list[search.ObservationHit]:
        def work(c: sqlite3.Connection) -> list[search.ObservationHit]:
            return search.search_observations(c, self._reader.pks(c, project_ids), query, limit)

        return self._db.search_damage.searched(lambda: self._reader.read(work), [OBSERVATION_TABLE])

    # -- forgetting observations ----------------------------------------------

    def get_observation(self, observation_id: str) -> Observation:
        return self._reader.read(lambda c: observations.load_observation(c, observation_id)[1])

    def forget_observation(
        self, observation_id: str, actor: str, now: float
    ) -> tuple[Observation, bool]:
        with self._db.transaction() as conn:
            return observations.forget_observation(conn, observation_id, actor, now)

    # -- the audit history (``audit.reads``) ----------------------------------

    def memory_history(self, memory_id: str) -> list[AuditEvent]:
        return self._audit.memory_history(memory_id)

    def project_history(
        self,
        project_id: str,
        limit: int,
        before_seq: int | None,
        actor: str | None,
        offset: int,
        person: str | None = None,
    ) -> list[AuditEvent]:
        return self._audit.project_history(project_id, limit, before_seq, actor, offset, person)

    def count_history(self, project_id: str, actor: str | None, person: str | None = None) -> int:
        return self._audit.count_history(project_id, actor, person)

    def history_actors(self, project_id: str) -> list[str]:
        return self._audit.history_actors(project_id)

    def history_people(self, project_id: str) -> list[str]:
        return self._audit.history_people(project_id)

    def last_events(self, memory_ids: Sequence[str], actions: Sequence[str]) -> list[AuditEvent]:
        return self._audit.last_events(memory_ids, actions)

    def events_after(self, seq: int, limit: int) -> list[AuditEvent]:
        return self._audit.events_after(seq, limit)

    def last_event_seq(self) -> int:
        return self._audit.last_event_seq()

    # -- the review inbox and extraction runs (``inbox_reads``) -------------------

    def get_proposal(self, proposal_id: str) -> Proposal:
        return self._inbox.get_proposal(proposal_id)

    def list_proposals(
        self, project_id: str | None, state: str, limit: int, offset: int
    ) -> list[Proposal]:
        return self._inbox.list_proposals(project_id, state, limit, offset)

    def merge_proposals(self, project_id: str, state: str) -> list[Proposal]:
        return self._inbox.merge_proposals(project_id, state)

    def list_unreviewed(
        self, project_id: str | None, limit: int, offset: int, now: float
    ) -> list[Memory]:
        return self._inbox.list_unreviewed(project_id, limit, offset, now)

    def inbox_counts(self, now: float) -> dict[str, int]:
        return self._inbox.inbox_counts(now)

    def list_runs(self, project_id: str | None, limit: int) -> list[ExtractionRun]:
        return self._inbox.list_runs(project_id, limit)

    # -- the Overview's counts (``overview_reads``) -------------------------------

    def memory_timeline(
        self,
        project_id: str | None,
        edges: Sequence[float],
        stale_max_importance: int,
        stale_age: float,
    ) -> list[tuple[str, int, int | None, int | None, int]]:
        return self._overview.memory_timeline(project_id, edges, stale_max_importance, stale_age)

    def use_grid(
        self, project_id: str | None, use_edges: Sequence[int]
    ) -> list[tuple[int, int, int, float | None]]:
        return self._overview.use_grid(project_id, use_edges)

    def event_counts(
        self, project_id: str | None, edges: Sequence[float], removals: Sequence[str]
    ) -> list[tuple[str, int, bool, int]]:
        return self._overview.event_counts(project_id, edges, removals)


# Declared, not inherited (a base would lend its stubs): mypy checks it meets the protocol.
_IMPLEMENTS: type[MemoryStore] = SqliteStore


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

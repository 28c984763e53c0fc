"""PostgresStore: the PostgreSQL implementation of ``core.backend.MemoryStore``.

It is put together like ``SqliteStore``: the database (``database``: the pool, the
transactions, the schema), the scopes' keys (``scopes``), read groups built on those
(``audit``, ``inbox_reads``, ``counts``, ``overview``, ``observations``), the vector index
(``vectors``) and a unit of work per write (``write_txn``). Each method below is one of
the protocol's, run on a pooled connection or handed to its group.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from ltm_desktop.core.backend import (
    MemoryHit,
    MemoryStore,
    ObservationHit,
    SearchRepair,
    StoreHealth,
    Verification,
    WriteTxn,
)
from ltm_desktop.core.change_feed import ChangeFeed
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
from ltm_desktop.postgres import memory_reads, memory_writes, project_paths, vectors
from ltm_desktop.postgres.audit.log import PgAuditReads, head_of
from ltm_desktop.postgres.audit.verify import verify_database
from ltm_desktop.postgres.conn import Conn
from ltm_desktop.postgres.counts import PgCounts
from ltm_desktop.postgres.database import (
    CONNECT_TIMEOUT,
    STATEMENT_TIMEOUT_MS,
    WRITE_LOCK_TIMEOUT_MS,
    PgDatabase,
)
from ltm_desktop.postgres.fts import search as fts_search
from ltm_desktop.postgres.inbox_reads import PgInboxReads
from ltm_desktop.postgres.observations import PgObservations
from ltm_desktop.postgres.overview import PgOverview
from ltm_desktop.postgres.scopes import ScopeKeys
from ltm_desktop.postgres.token_sets import PgScopeTokenSets
from ltm_desktop.postgres.write_txn import PgWriteTxn


class PostgresStore:
    """Memories, observations and their history in one PostgreSQL database."""

    def __init__(
        self,
        conninfo: str,
        backup_dir: Path,
        *,
        create: bool = True,
        connect_timeout: float = CONNECT_TIMEOUT,
        lock_timeout_ms: int = WRITE_LOCK_TIMEOUT_MS,
        statement_timeout_ms: int = STATEMENT_TIMEOUT_MS,
    ) -> None:
        self._db = PgDatabase(
            conninfo,
            create=create,
            connect_timeout=connect_timeout,
            lock_timeout_ms=lock_timeout_ms,
            statement_timeout_ms=statement_timeout_ms,
        )
        self.backup_dir = backup_dir
        self.migration_backup: Path | None = None  # version 1 is the first: nothing to back up
        self._keys = ScopeKeys()
        self._token_sets = PgScopeTokenSets()  # the writer's, for near duplicates
        self._vectors = vectors.PgVectorIndex()
        self._audit = PgAuditReads(self._db, self._keys)
        self._inbox = PgInboxReads(self._db, self._keys)
        self._counts = PgCounts(self._db, self._keys)
        self._overview = PgOverview(self._db, self._keys)
        self._observations = PgObservations(self._db, self._keys)

    # -- the database -----------------------------------------------------------

    @property
    def location(self) -> str:
        """Where the data is, for a person: host, port and database, never a password."""
        return self._db.display

    @property
    def server_version(self) -> int:
        """The server's version number (150004 for 15.4)."""
        return self._db.server_version

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
        """Other processes' commits, as their ``NOTIFY`` reaches a listening connection."""
        return self._db.change_feed()

    def verify(self, quick: bool) -> Verification:
        return self._db.read_snapshot(lambda conn: verify_database(conn, quick))

    def repair_search(self) -> SearchRepair:
        """PostgreSQL's indexes are its own to keep (a GIN index is never out of step with
        its rows): there is nothing to rebuild."""
        return SearchRepair()

    def scrub(self) -> str | None:
        """An erased row's old versions are dead tuples until VACUUM reuses their space;
        VACUUM makes the space reusable, it does not overwrite it. Run here so nothing of
        an erased memory stays reachable through the table."""
        skipped = self._db.vacuum(
            ("memories", "memory_index", "memory_tags", "memory_files", "audit", "proposals")
        )  # proposals: one approved into the memory is erased with it
        if not skipped:
            return None
        return (
            f"VACUUM skipped {len(skipped)} table(s) ({skipped[0]}): the erased rows' old "
            "versions stay in their pages until the tables' owner runs VACUUM (or autovacuum does)"
        )

    # -- projects ---------------------------------------------------------------

    def ensure_project(self, project_id: str, path: str | None, name: str) -> Project:
        known = self._db.read(
            lambda c: c.execute(
                "SELECT path, name FROM projects WHERE project_id = %s", (project_id,)
            ).fetchone()
        )
        if known is None or (path is not None and known[0] != path):
            with self._db.transaction() as conn:
                conn.execute(
                    "INSERT INTO projects (project_id, path, name, created_at) "
                    "VALUES (%s, %s, %s, extract(epoch FROM now())::bigint) "
                    "ON CONFLICT (project_id) DO UPDATE SET path = excluded.path, "
                    "name = excluded.name",
                    (project_id, path, name),
                )
        return self.get_project(project_id)

    def get_project(self, project_id: str) -> Project:
        row = self._db.read(
            lambda c: c.execute(
                "SELECT project_id, path, name, created_at FROM projects WHERE project_id = %s",
                (project_id,),
            ).fetchone()
        )
        if row is None:
            raise NotFound(f"no project has the id {echoed(project_id)}")
        return Project(*row)

    def list_projects(self) -> list[Project]:
        rows = self._db.read(
            lambda c: c.execute(
                "SELECT project_id, path, name, created_at FROM projects "
                "ORDER BY project_id != %s, lower(name), name",
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

    # -- projects' paths (core.projects.paths) ------------------------------------

    def path_owner(self, machine: str, path: str) -> ProjectPath | None:
        return self._db.read(lambda c: project_paths.path_owner(c, machine, path))

    def record_path(
        self, project_id: str, machine: str, path: str, now: float, *, pinned: bool = False
    ) -> None:
        with self._db.transaction() as conn:
            project_paths.record_path(conn, project_id, machine, path, now, pinned)

    def project_paths(self, project_id: str) -> list[ProjectPath]:
        return self._db.read(lambda c: project_paths.project_paths(c, project_id))

    def machine_paths(self, machine: str) -> list[ProjectPath]:
        return self._db.read(lambda c: project_paths.machine_paths(c, machine))

    def move_observations(self, source: str, target: str) -> int:
        with self._db.transaction() as conn:
            return project_paths.move_observations(conn, source, target)

    # -- memory writes ------------------------------------------------------------

    @contextmanager
    def write(self) -> Iterator[WriteTxn]:
        """A unit of work (``core.backend.WriteTxn``) in one transaction holding the
        writer's lock: the core decides and writes inside it, atomically. The writer's
        token sets forget what they learnt in a transaction that did not commit."""
        try:
            with self._db.writing() as (conn, head):
                yield PgWriteTxn(conn, self._keys, self._token_sets, lambda: head_of(head()))
        except BaseException:
            self._token_sets.reset()
            raise

    def reinforce(self, uses: dict[str, tuple[int, float, float]]) -> None:
        if uses:
            with self._db.transaction() as conn:
                memory_writes.reinforce(conn, uses)

    # -- memory reads ---------------------------------------------------------------

    def _scope(self, conn: Conn, project_id: str) -> int | None:
        return self._keys.pk(conn, project_id)

    def get_memory(self, memory_id: str) -> Memory:
        return self._db.read(lambda c: memory_writes.load_memory(c, memory_id)[2])

    def get_memories(self, memory_ids: Sequence[str]) -> list[Memory]:
        return self._db.read(lambda c: memory_reads.get_memories(c, list(memory_ids)))

    def list_memories(self, project_id: str, query: ListQuery, now: float) -> list[Memory]:
        def work(c: Conn) -> list[Memory]:
            pk = self._scope(c, project_id)
            return [] if pk is None else memory_reads.list_memories(c, pk, query, now)

        return self._db.read(work)

    def count_memories(self, project_id: str, query: ListQuery, now: float) -> int:
        def work(c: Conn) -> int:
            pk = self._scope(c, project_id)
            return 0 if pk is None else memory_reads.count_memories(c, pk, query, now)

        return self._db.read(work)

    def top_memories(
        self, project_ids: Sequence[str], importances: Sequence[int], n: int, now: float
    ) -> list[Memory]:
        def work(c: Conn) -> list[Memory]:
            pks = [pk for pk in (self._scope(c, p) for p in project_ids) if pk is not None]
            return memory_reads.top_memories(c, pks, importances, n, now)

        return self._db.read(work)

    def stale_memories(
        self, project_id: str, max_importance: int, cutoff: float, now: float
    ) -> list[Memory]:
        def work(c: Conn) -> list[Memory]:
            pk = self._scope(c, project_id)
            if pk is None:
                return []
            return memory_reads.stale_memories(c, pk, max_importance, cutoff, now)

        return self._db.read(work)

    def memories_naming(
        self, project_ids: Sequence[str], path: str | None, limit: int, now: float
    ) -> list[Memory]:
        return self._db.read(
            lambda c: memory_reads.memories_naming(
                c, self._keys.pks(c, project_ids), path, limit, now
            )
        )

    def search_memories(
        self,
        project_ids: Sequence[str],
        query: ParsedQuery,
        limit: int,
        now: float,
        where: SearchFilter | None = None,
    ) -> list[MemoryHit]:
        return self._db.read(
            lambda c: fts_search.search_memories(
                c, self._keys.pks(c, project_ids), query, limit, now, where
            )
        )

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
        def work(c: Conn) -> list[tuple[Memory, float]]:
            nearest = vectors.Nearest(model, vector, limit, min_score, centre)
            pks = self._keys.pks(c, project_ids)
            return vectors.search_vectors(c, self._vectors, pks, nearest, now, where)

        return self._db.read(work)

    def index_version(self, project_ids: Sequence[str]) -> int:
        return self._db.read(  # the scopes' pks are known after their first use
            lambda c: vectors.index_version(c, self._keys.pks(c, project_ids))
        )

    def unindexed(self, model: str, after_id: str, limit: int) -> list[Memory]:
        return self._db.read(lambda c: vectors.unindexed(c, model, after_id, limit))

    def index_progress(self, model: str) -> tuple[int, int]:
        return self._db.read(lambda c: vectors.index_progress(c, model))

    def scope_counts(
        self, project_id: str, max_importance: int, cutoff: float, now: float
    ) -> dict[str, int]:
        def work(c: Conn) -> dict[str, int]:
            pk = self._scope(c, project_id)
            if pk is None:
                return dict.fromkeys(("active", "disabled", "expired", "stale", "observations"), 0)
            return memory_reads.scope_counts(c, pk, max_importance, cutoff, now)

        return self._db.read(work)

    # -- observations ---------------------------------------------------------------

    def add_observation(
        self, project_id: str, payload: ObservationPayload, actor: str, now: float
    ) -> Observation:
        return self._observations.add_observation(project_id, payload, actor, now)

    def list_observations(
        self, project_id: str, limit: int, offset: int, session: str | None
    ) -> list[Observation]:
        return self._observations.list_observations(project_id, limit, offset, session)

    def count_observations(self, project_id: str, session: str | None) -> int:
        return self._observations.count_observations(project_id, session)

    def observation_sessions(self, project_id: str, limit: int) -> list[str]:
        return self._observations.observation_sessions(project_id, limit)

    def search_observations(
        self, project_ids: Sequence[str], query: ParsedQuery, limit: int
    ) -> list[ObservationHit]:
        return self._db.read(
            lambda c: fts_search.search_observations(
                c, self._keys.pks(c, project_ids), query, limit
            )
        )

    def get_observation(self, observation_id: str) -> Observation:
        return self._observations.get_observation(observation_id)

    def forget_observation(
        self, observation_id: str, actor: str, now: float
    ) -> tuple[Observation, bool]:
        return self._observations.forget_observation(observation_id, actor, now)

    # -- the audit history ----------------------------------------------------------

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

    # -- the review inbox and extraction runs ------------------------------------------

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

    # -- the Overview's counts -----------------------------------------------------------

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
_IMPLEMENTS: type[MemoryStore] = PostgresStore

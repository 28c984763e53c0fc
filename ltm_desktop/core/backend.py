"""The storage protocol the service is written against.

SQLite implements it today (``ltm_desktop.store``); a server-grade backend
(e.g. PostgreSQL for shared team memory) can implement it later without the
service, the API or the GUI changing. A backend stores and answers queries; it
decides nothing. Memory writes go through a unit of work (``MemoryStore.write``):
the core reads what it needs, decides (dedup, supersede, conflicts, versions:
``core.writing``) and writes through the ``WriteTxn`` primitives, all in one
transaction, so the decision and the write are atomic. Every other write method
is one transaction of its own.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

from ltm_desktop.core.change_feed import ChangeFeed
from ltm_desktop.core.inbox.proposals import ExtractionRun, Proposal
from ltm_desktop.core.observations import ObservationPayload
from ltm_desktop.core.overview.reads import OverviewReads
from ltm_desktop.core.projects.paths import ProjectPathStore
from ltm_desktop.core.records import (
    AuditAction,
    AuditEvent,
    ListQuery,
    Memory,
    Observation,
    Project,
    SearchFilter,
)
from ltm_desktop.core.search.query import ParsedQuery

# (memory, BM25 within its scope, snippet, stage): stage 0 holds every term of the query,
# 1 two of them, 2 any one (MemoryStore.search_memories).
MemoryHit = tuple[Memory, float, str, int]
ObservationHit = tuple[Observation, float, str]

# ``ListQuery.order_by`` values every backend sorts by (the core refuses others), and the
# largest page ``list_memories`` is asked for.
LIST_ORDERS = (
    "importance",
    "updated_at",
    "created_at",
    "last_used_at",
    "use_count",
    "title",
    "category",
    "source",
    "disabled_at",
)
MAX_PAGE = 10_000
# ``use_heat`` of a memory: the sum over its uses of 2 ** ((used_at - USE_HEAT_EPOCH) /
# USE_HEAT_HALF_LIFE). Times 2 ** (-(now - USE_HEAT_EPOCH) / USE_HEAT_HALF_LIFE) it is the
# number of uses, each halved for every half-life since it happened (core.ranking); sorting
# by it sorts by that number at any time. It stays finite until about the year 2190.
USE_HEAT_EPOCH = 1_735_689_600.0  # 2025-01-01 UTC
USE_HEAT_HALF_LIFE = 60 * 86_400.0


@dataclass(frozen=True, slots=True)
class StoreHealth:
    """What the store knows about itself. ``problems`` are sentences for a person: each one means
    writes are failing or would be lost, or searches fail, until it is fixed (some need a restart).
    ``synchronous`` says when a write is durable: "full" (on disk when acknowledged) or
    "normal" (a power cut may lose the last writes, never the database)."""

    problems: tuple[str, ...] = ()
    synchronous: str = "full"

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass(frozen=True, slots=True)
class Verification:
    """What ``MemoryStore.verify`` found: sentences for a person (empty: all is well),
    the audit history's head hash (to compare with one noted earlier) and its length."""

    problems: tuple[str, ...] = ()
    head: str = ""
    events: int = 0
    quick: bool = False

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass(frozen=True, slots=True)
class SearchRepair:
    """What ``repair_search`` rebuilt ("the search index of proj_…"); its backup, if any."""

    rebuilt: tuple[str, ...] = ()
    backup: str | None = None


@dataclass(frozen=True, slots=True)
class AuditEntry:
    """One change for the append-only audit history, as the core words it (the store
    gives it its sequence number)."""

    at: float
    memory_id: str
    project_id: str
    actor: str
    action: AuditAction
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    # who made it on which machine (``core.actors``): stamped by the write kernel
    person: str | None = None
    machine: str | None = None
    machine_id: str | None = None


class WriteTxn(Protocol):
    """Storage primitives inside one write transaction (``MemoryStore.write``).

    Reads see this transaction's own writes. Nothing here decides: the core calls
    these in the order it chose, and a backend only has to store and find.
    """

    def get_memory(self, memory_id: str) -> Memory:
        """The memory, removed or not; NotFound if there is none."""
        ...

    def find_active(self, project_id: str, signature: str) -> Memory | None:
        """The scope's memory with this signature that is not disabled (expired or not),
        if any; the core keeps at most one."""
        ...

    def near_duplicates(
        self,
        project_id: str,
        tokens: Collection[str],
        at_least: int,
        min_tokens: float,
        max_tokens: float,
    ) -> list[tuple[str, str]]:
        """(id, content) of every active memory of the scope whose token count (as given to
        ``insert_memory``) is strictly between the bounds and whose content holds at least
        ``at_least`` of ``tokens`` (whitespace-separated, as ``rules.similarity_tokens``
        cuts them). Candidates: the core computes the similarity, so a backend may return
        more, never fewer. (SQLite: a memory lacking at most ``len(tokens) - at_least`` of
        them holds two of any that many plus two, so it asks its index for the memories
        holding two of the rarest ones.)"""
        ...

    def insert_memory(
        self, memory: Memory, tokens: Collection[str], vector: tuple[str, bytes] | None = None
    ) -> None:
        """Store a new memory (creating its scope if unseen) and make it searchable.

        Args:
            tokens: its content's ``rules.similarity_tokens``, which ``near_duplicates``
                looks for (their number is the token count it filters by).
            vector: (model, vector) as ``set_vector`` takes them, kept with it.
        """
        ...

    def active_signatures(self, project_id: str, signatures: Collection[str]) -> set[str]:
        """Those of ``signatures`` that an active memory of the scope has (``find_active``
        for a whole batch)."""
        ...

    def insert_memories(self, batch: Sequence[tuple[Memory, Collection[str]]]) -> None:
        """``insert_memory`` (without vectors) for new memories of one scope, in order:
        an import's batch, stored with a statement or so per table."""
        ...

    def save_memory(
        self, before: Memory, after: Memory, tokens: Collection[str] | None = None
    ) -> None:
        """Store ``after`` over ``before`` (the same memory as read in this transaction).

        Search follows: a memory that became disabled leaves it, one that became active
        returns, an active one whose title, content or tags changed is re-indexed and
        loses its vector (the core stores the new one with ``set_vector``).

        Args:
            tokens: the new content's tokens, as for ``insert_memory``; required when the
                content changed.
        """
        ...

    def set_vector(self, memory_id: str, model: str, vector: bytes) -> None:
        """Keep the memory's embedding: ``vector`` is a unit vector of float32 (little-endian)
        made by ``model`` from its text; it replaces any other."""
        ...

    def set_tokens(self, memory_id: str, tokens: Collection[str]) -> None:
        """Record the tokens of a memory stored before they were kept (the backfill)."""
        ...

    def record(self, entry: AuditEntry) -> None:
        """Append one event to the audit history."""
        ...

    def record_all(self, entries: Sequence[AuditEntry]) -> None:
        """Append events in order, as ``record`` does one by one."""
        ...

    def expired_ids(self, project_id: str | None, now: float) -> list[str]:
        """Ids of the memories not disabled whose ``expires_at`` is at or before ``now``, in
        one scope (None: every scope; an unknown scope has none)."""
        ...

    # erasure (core.erasing): the only physical deletion
    def trashed_ids(self, project_id: str) -> list[str]:
        """Ids of the scope's disabled memories (an unknown scope has none)."""
        ...

    def erase_memory(self, memory_id: str) -> None:
        """Delete the memory and everything stored from its text (tags, search entries,
        token set, vector), leaving no copy in the backend's files or indexes."""
        ...

    def approved_into(self, memory_id: str) -> list[str]:
        """Ids of the proposals whose approval made (or refreshed) this memory."""
        ...

    def erase_proposal(self, proposal_id: str) -> None:
        """Delete a proposal (its text is a copy of an erased memory's)."""
        ...

    def tombstone_history(self, memory_id: str, tombstone: dict[str, Any]) -> int:
        """Replace ``before`` of each of the memory's audit events with none and ``after``
        with ``tombstone`` (the only change the history allows); returns how many."""
        ...

    # the review inbox and extraction runs
    def get_proposal(self, proposal_id: str) -> Proposal:
        """The proposal, whatever its state; NotFound if there is none."""
        ...

    def pending_proposal(self, project_id: str, signature: str) -> Proposal | None:
        """A proposal of the scope in state ``proposed`` with this signature, if any."""
        ...

    def insert_proposal(self, proposal: Proposal) -> None:
        """Store a new proposal (creating its scope if unseen)."""

    def pending_merges(self, project_id: str) -> list[Proposal]: ...  # proposed, with merges
    def save_proposal(self, before: Proposal, after: Proposal) -> None:
        """Store ``after`` over ``before`` (the same proposal as read in this transaction)."""

    def insert_run(self, run: ExtractionRun) -> None:
        """Record an extraction run (creating its scope if unseen)."""
        ...


class MemoryStore(OverviewReads, ProjectPathStore, Protocol):
    """What the service needs from a backend (the Overview's counts: core.overview_reads)."""

    @property
    def location(self) -> str: ...

    @property
    def schema_version(self) -> int: ...

    def close(self) -> None: ...
    def health(self) -> StoreHealth:
        """Checked now, cheaply (no query): files still in place, checkpoints, last write."""
        ...

    def data_version(self) -> int:
        """A number that changes whenever another process commits to the store."""
        ...

    def change_feed(self) -> ChangeFeed:
        """A new feed that wakes its subscribers after another process's (or machine's)
        commits (``core.change_feed``), with a thread of its own; the caller closes it.
        SQLite polls ``data_version``; PostgreSQL listens for the commits' ``NOTIFY``."""
        ...

    # projects
    def ensure_project(self, project_id: str, path: str | None, name: str) -> Project: ...
    def get_project(self, project_id: str) -> Project: ...
    def list_projects(self) -> list[Project]: ...
    def active_counts(self, now: float) -> dict[str, int]: ...
    def new_counts(self, since: float, now: float) -> dict[str, int]:
        """Active memories agents (not GUI_ACTOR) created after ``since``, per project id."""
        ...

    def stale_counts(self, max_importance: int, cutoff: float, now: float) -> dict[str, int]:
        """Stale candidates (as ``stale_memories`` finds them) per project id."""
        ...

    # memory writes
    def write(self) -> AbstractContextManager[WriteTxn]:
        """A unit of work: one transaction, committed when the block ends normally and
        rolled back (nothing written) when it raises. One writer at a time."""
        ...

    def verify(self, quick: bool) -> Verification:
        """Check the stored files: integrity, the audit history's chain and append-only
        guard, and (unless ``quick``) the search indexes against the rows. ``quick`` is
        bounded (the newest events, a quick integrity check), for every start."""
        ...

    def repair_search(self) -> SearchRepair:
        """Rebuild the search indexes ``verify`` finds damaged from their rows, backed up first."""
        ...

    def scrub(self) -> str | None:
        """After an erase: make sure no old copy of erased data is left in the backend's
        files (SQLite: copy the WAL into the database and empty it). None when done, else
        why not yet (it happens at a later checkpoint)."""
        ...

    def reinforce(self, uses: dict[str, tuple[int, float, float]]) -> None:
        """Add uses: memory id -> (how many, last used at, what they add to ``use_heat``);
        one transaction. Not an audit event, and ``updated_at`` does not move (a use is
        not a change of content)."""
        ...

    # memory reads
    def get_memory(self, memory_id: str) -> Memory: ...
    def get_memories(self, memory_ids: Sequence[str]) -> list[Memory]:
        """The memories that exist among ``memory_ids`` (any order; unknown ids skipped)."""
        ...

    def list_memories(self, project_id: str, query: ListQuery, now: float) -> list[Memory]:
        """A page of the scope in ``query.order_by`` order. The core has checked ``query``
        (``core.listing``): an order in LIST_ORDERS, a limit up to MAX_PAGE, a Category, a
        normalized tag."""
        ...

    def count_memories(self, project_id: str, query: ListQuery, now: float) -> int: ...
    def top_memories(
        self, project_ids: Sequence[str], importances: Sequence[int], n: int, now: float
    ) -> list[Memory]:
        """For each of the scopes and each of the importance levels, the first ``n`` active,
        unexpired memories of that scope and level by ``use_heat`` (most first), then by
        ``updated_at`` (newest first); all of them, in no particular order. One read,
        however many pairs: MEMORY.md is regenerated after every write."""
        ...

    def stale_memories(
        self, project_id: str, max_importance: int, cutoff: float, now: float
    ) -> list[Memory]:
        """Active, unexpired memories of importance <= ``max_importance``, never used, and
        neither updated nor reviewed since ``cutoff``; oldest update first."""
        ...

    def memories_naming(
        self, project_ids: Sequence[str], path: str | None, limit: int, now: float
    ) -> list[Memory]:
        """Up to ``limit`` active, unexpired memories of the scopes whose ``files`` hold
        ``path`` (None: that name any file), most important first, then newest."""
        ...

    def search_memories(
        self,
        project_ids: Sequence[str],
        query: ParsedQuery,
        limit: int,
        now: float,
        where: SearchFilter | None = None,
    ) -> list[MemoryHit]:
        """For each stage (every term, then two, then any; a stage runs only while fewer
        than ``limit`` memories were found), the ``limit`` best active, unexpired memories
        of each scope not found before, best first within the scope. Scores of different
        scopes need not be comparable: the core ranks across them. ``where`` narrows the
        memories (category, tag) or widens them (removed, expired ones: a removed memory
        holding every term ranks after the active ones)."""
        ...

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
        """The ``limit`` active, unexpired memories of the scopes (or those ``where``
        admits) whose vectors of ``model`` are most similar to ``vector`` (cosine
        similarity, best first), none below ``min_score``. Approximate search is allowed:
        SQLite scores the rows nearest by sign bits exactly.

        With ``centre``, "most similar" is to ``vector`` less the mean of the scopes' n
        vectors times n / (n + ``centre``), at unit length; the scores returned and
        ``min_score`` are still plain cosines (core.hybrid says why)."""
        ...

    def unindexed(self, model: str, after_id: str, limit: int) -> list[Memory]:
        """Active memories without a token set, or a vector of ``model`` ("": none needed), in
        an order of the store's own after the memory ``after_id`` ("": from the start)."""
        ...

    def index_progress(self, model: str) -> tuple[int, int]:
        """(active memories with a vector of ``model``, active memories)."""
        ...

    def scope_counts(
        self, project_id: str, max_importance: int, cutoff: float, now: float
    ) -> dict[str, int]: ...

    # observations
    def add_observation(
        self, project_id: str, payload: ObservationPayload, actor: str, now: float
    ) -> Observation: ...
    def list_observations(
        self, project_id: str, limit: int, offset: int, session: str | None
    ) -> list[Observation]:
        """The scope's observations not forgotten (of one session), newest first."""
        ...

    def count_observations(self, project_id: str, session: str | None) -> int: ...
    def observation_sessions(self, project_id: str, limit: int) -> list[str]:
        """The sessions of the scope's observations not forgotten, the one whose newest
        observation is newest first; at most ``limit``."""
        ...

    def search_observations(
        self, project_ids: Sequence[str], query: ParsedQuery, limit: int
    ) -> list[ObservationHit]: ...

    # audit history
    def memory_history(self, memory_id: str) -> list[AuditEvent]: ...
    def project_history(
        self,
        project_id: str,
        limit: int,
        before_seq: int | None,
        actor: str | None,
        offset: int,
        person: str | None = None,
    ) -> list[AuditEvent]:
        """The scope's events (of one actor, of one person), newest first: older than
        ``before_seq``, skipping ``offset``."""
        ...

    def count_history(
        self, project_id: str, actor: str | None, person: str | None = None
    ) -> int: ...

    def history_actors(self, project_id: str) -> list[str]:
        """Every actor with an event in the scope, in name order."""
        ...

    def history_people(self, project_id: str) -> list[str]:
        """Every person with an event in the scope, in name order (older events have none)."""
        ...

    def events_after(self, seq: int, limit: int) -> list[AuditEvent]: ...
    def last_events(self, memory_ids: Sequence[str], actions: Sequence[str]) -> list[AuditEvent]:
        """The newest event with one of ``actions`` for each of the memories."""
        ...

    def last_event_seq(self) -> int: ...
    def index_version(self, project_ids: Sequence[str]) -> int:
        """A number that grows whenever a token set or vector of one of the scopes changes,
        in any process (what a cached search by meaning depends on besides the events)."""
        ...

    # the review inbox and extraction runs
    def get_proposal(self, proposal_id: str) -> Proposal:
        """The proposal, whatever its state; NotFound for an unknown id."""
        ...

    def list_proposals(
        self, project_id: str | None, state: str, limit: int, offset: int
    ) -> list[Proposal]:
        """Proposals in ``state`` of one scope (None: every scope), newest first."""
        ...

    def merge_proposals(self, project_id: str, state: str) -> list[Proposal]: ...  # newest 1st
    def list_unreviewed(
        self, project_id: str | None, limit: int, offset: int, now: float
    ) -> list[Memory]:
        """Active, unexpired memories whose ``review_state`` is set, of one scope (None:
        every scope), newest first."""
        ...

    def inbox_counts(self, now: float) -> dict[str, int]:
        """Per scope: proposals in state ``proposed`` plus what ``list_unreviewed`` lists."""
        ...

    def list_runs(self, project_id: str | None, limit: int) -> list[ExtractionRun]:
        """Extraction runs of one scope (None: every scope), newest first."""
        ...

    # forgetting observations
    def get_observation(self, observation_id: str) -> Observation:
        """The observation, forgotten or not; NotFound for an unknown id."""
        ...

    def forget_observation(
        self, observation_id: str, actor: str, now: float
    ) -> tuple[Observation, bool]:
        """Soft delete: out of search and lists from now on. Returns (the observation,
        whether this call forgot it: False when it already was, and nothing changed)."""
        ...

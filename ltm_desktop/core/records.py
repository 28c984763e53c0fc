"""Plain dataclasses that every layer passes around.

Times are POSIX timestamps (float seconds, UTC); the API renders them as
ISO 8601. Records are frozen: a change is a new record from the store.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

GLOBAL_PROJECT_ID = "global"
# The fields a person or an agent may change (API, GUI editor, diffs, reverts), in form order.
EDITABLE_FIELDS: tuple[str, ...] = (
    "title",
    "content",
    "category",
    "importance",
    "tags",
    "ttl_days",
    "files",
)
GUI_ACTOR = "gui"  # the actor of every change made in the desktop app
SECONDS_PER_DAY = 86_400.0


class Category(StrEnum):
    KNOWLEDGE = "knowledge"
    PREFERENCE = "preference"
    TASK = "task"
    SKILL = "skill"


class ObservationKind(StrEnum):
    AGENT_END = "agent_end"
    PRE_COMPACT = "pre_compact"


class AuditAction(StrEnum):
    CREATED = "created"
    DEDUPLICATED = "deduplicated"
    SUPERSEDED = "superseded"
    UPDATED = "updated"
    REMOVED = "removed"
    RESTORED = "restored"
    EXPIRED = "expired"
    IMPORTED = "imported"
    REVIEWED = "reviewed"
    PURGED = "purged"
    ERASED = "erased"  # physically deleted from the trash; its events keep no content
    MOVED = "moved"  # to another scope (core.scope_transfer): the source, to the trash
    COPIED = "copied"  # to another scope: the source, unchanged
    # the review inbox (``core.reviewing``): on a proposal's id, or an unreviewed memory's
    PROPOSED = "proposed"
    APPROVED = "approved"
    REJECTED = "rejected"
    REOPENED = "reopened"
    # extraction runs (on the run's id), so the Activity view shows them, failures too
    EXTRACTED = "extracted"
    EXTRACTION_FAILED = "extraction_failed"


class ReviewState(StrEnum):
    """A memory that went in without a person's look (the extractor with ``review =
    false``) is ``unreviewed`` until someone approves or removes it; None otherwise."""

    UNREVIEWED = "unreviewed"


@dataclass(frozen=True, slots=True)
class Provenance:
    """Where an extracted memory or proposal came from."""

    run_id: str
    agent: str  # the coding agent whose conversation it was (claude-code, codex...)
    session_id: str
    source: str  # the transcript's path, "observation obs_...", or "text"
    model: str
    extracted_at: float

    def as_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "agent": self.agent,
            "session_id": self.session_id,
            "source": self.source,
            "model": self.model,
            "extracted_at": self.extracted_at,
        }

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> Provenance:
        return cls(
            run_id=str(values.get("run_id", "")),
            agent=str(values.get("agent", "")),
            session_id=str(values.get("session_id", "")),
            source=str(values.get("source", "")),
            model=str(values.get("model", "")),
            extracted_at=float(values.get("extracted_at", 0.0)),
        )


class AddStatus(StrEnum):
    CREATED = "created"
    DEDUPLICATED = "deduplicated"
    SUPERSEDED = "superseded"
    QUEUED = "queued"  # kept in the offline outbox, written when the database answers


@dataclass(frozen=True, slots=True)
class Project:
    project_id: str
    path: str | None
    name: str
    created_at: float


@dataclass(frozen=True, slots=True)
class Memory:
    id: str
    project_id: str
    title: str
    content: str
    category: Category
    importance: int
    tags: tuple[str, ...]
    signature: str
    created_at: float
    updated_at: float
    last_used_at: float | None
    use_count: int
    ttl_days: int | None
    disabled: bool
    source: str
    superseded_by: str | None
    disabled_at: float | None = None
    reviewed_at: float | None = None
    review_state: ReviewState | None = None
    provenance: Provenance | None = None
    use_heat: float = 0.0  # decayed uses, see core.backend.USE_HEAT_EPOCH and core.ranking
    # the files it is about, relative to its project's directory (core.files)
    files: tuple[str, ...] = ()

    @property
    def expires_at(self) -> float | None:
        if self.ttl_days is None:
            return None
        return self.updated_at + self.ttl_days * SECONDS_PER_DAY

    def is_expired(self, now: float) -> bool:
        expires = self.expires_at
        return expires is not None and expires <= now


@dataclass(frozen=True, slots=True)
class MemoryDraft:
    """What a caller supplies to add a memory; the rules fill in the rest."""

    content: str
    title: str | None = None
    category: Category | str = Category.KNOWLEDGE
    importance: int | None = None  # None: the configured default ([memory] default_importance)
    tags: tuple[str, ...] | list[str] = ()
    ttl_days: int | None = None
    # relative to the project's directory, or absolute inside it (core.files.check_files)
    files: tuple[str, ...] | list[str] = ()


@dataclass(frozen=True, slots=True)
class AddResult:
    status: AddStatus
    memory: Memory
    superseded_id: str | None = None


@dataclass(frozen=True, slots=True)
class Observation:
    id: str
    project_id: str
    session_id: str
    kind: ObservationKind
    title: str
    narrative: str
    created_at: float
    source: str
    disabled: bool = False  # forgotten: out of search and lists, the row kept


@dataclass(frozen=True, slots=True)
class AuditEvent:
    seq: int
    at: float
    memory_id: str
    project_id: str
    actor: str  # the agent: which agent, the app ("gui"), the CLI
    action: AuditAction
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    # the person (user@host) and the machine (name, stable id); None: an event from
    # before they were recorded
    person: str | None = None
    machine: str | None = None
    machine_id: str | None = None


# Why a search hit matched: it holds every word of the query, some of them, or none but
# means much the same (semantic search).
MATCHED_WORDS = "words"
MATCHED_SOME = "some_words"
MATCHED_MEANING = "meaning"


@dataclass(frozen=True, slots=True)
class SearchHit:
    memory: Memory
    score: float
    snippet: str
    matched: str = MATCHED_WORDS
    # For a memory the search by meaning found: its cosine similarity to the query.
    similarity: float | None = None


@dataclass(frozen=True, slots=True)
class RecallHit:
    kind: str  # "memory" or "observation"
    score: float
    snippet: str
    memory: Memory | None = None
    observation: Observation | None = None
    matched: str = MATCHED_WORDS


@dataclass(frozen=True, slots=True)
class ScopeStats:
    project_id: str
    active: int
    disabled: int
    expired: int
    stale: int
    observations: int


@dataclass(frozen=True, slots=True)
class ListQuery:
    """How to page through a scope; ``order_by`` is checked against an allow-list."""

    category: Category | str | None = None
    tag: str | None = None
    include_disabled: bool = False
    include_expired: bool = False
    only_disabled: bool = False
    # only memories agents (not the person, GUI_ACTOR) created after this time: what is
    # new since the person last looked
    new_since: float | None = None
    order_by: str = "importance"
    descending: bool = True
    limit: int = 100
    offset: int = 0


@dataclass(frozen=True, slots=True)
class SearchFilter:
    """What a person's search is narrowed to: the list's filters (category, tag, whether
    removed or expired memories count too, and "New": only what agents created after
    ``new_since``). The store applies it in its queries."""

    category: str | None = None
    tag: str | None = None
    include_disabled: bool = False
    include_expired: bool = False
    new_since: float | None = None

    def admits(self, memory: Memory, now: float) -> bool:
        """Whether ``memory`` passes (for backends that filter rows they already hold)."""
        if memory.disabled and not self.include_disabled:
            return False
        if memory.is_expired(now) and not self.include_expired:
            return False
        if self.category is not None and str(memory.category) != self.category:
            return False
        if self.new_since is not None and (
            memory.created_at <= self.new_since or memory.source == GUI_ACTOR
        ):
            return False
        return self.tag is None or self.tag in memory.tags


@dataclass(frozen=True, slots=True)
class PrecisInfo:
    """A rendered MEMORY.md and what went into it."""

    project_id: str
    text: str
    bytes: int
    budget: int
    truncated: bool
    path: str
    memory_ids: tuple[str, ...]
    candidate_ids: tuple[str, ...] = field(default=())
    last: Memory | None = None  # the last candidate (what a changed memory must beat)
    next_expiry: float | None = None  # when the first candidate's TTL runs out


@dataclass(frozen=True, slots=True)
class MemoryMdProblem:
    """A scope whose MEMORY.md could not be brought up to date (the database is fine)."""

    project_id: str
    path: str
    reason: str
    since: float  # wall-clock time of the first failure in a row
    attempts: int

    def describe(self) -> str:
        return f"MEMORY.md of {self.project_id} could not be written ({self.path}): {self.reason}"


@dataclass(frozen=True, slots=True)
class ChangeEvent:
    """Published by the service after a write has been committed."""

    memory_id: str
    project_id: str
    action: str
    actor: str
    at: float


@dataclass(frozen=True, slots=True)
class IndexStatus:
    """Semantic search's state: which model, how many active memories have its vector."""

    model: str  # "" : none configured (search by words only)
    with_vectors: int
    memories: int
    running: bool  # the backfill is at work
    problem: str | None  # why semantic search is off, for a person

    @property
    def complete(self) -> bool:
        return not self.model or self.with_vectors >= self.memories

"""The JSON shapes of the API's results, as typed dicts (docs/protocol.md §9 and §13).

``api.serialize`` builds them and ``api.client`` returns them, so the server, the
Python client and a type checker agree on every member.
"""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict


class ProvenanceShape(TypedDict):
    run_id: str
    agent: str
    session_id: str
    source: str
    model: str
    extracted_at: str


class MemoryShape(TypedDict):
    id: str
    project_id: str
    title: str
    content: str
    category: str
    importance: int
    tags: list[str]
    files: list[str]  # relative to the project's directory
    created_at: str
    updated_at: str
    last_used_at: str | None
    use_count: int
    ttl_days: int | None
    disabled: bool
    source: str
    superseded_by: str | None
    review_state: str | None  # "unreviewed": extracted, not yet looked at by a person
    provenance: ProvenanceShape | None  # where an extracted memory came from
    flagged: str | None  # why it waits for approval before MEMORY.md (reads like an order)


class ObservationShape(TypedDict):
    id: str
    project_id: str
    session_id: str
    kind: str
    title: str
    narrative: str
    created_at: str
    source: str


class ObserveResultShape(TypedDict):
    observation: ObservationShape | None  # None: nothing recorded (see ``skipped``)
    skipped: NotRequired[str]  # why not: the config turns this kind of observation off
    warning: NotRequired[str]


class ProjectShape(TypedDict):
    project_id: str
    path: str | None
    name: str
    # project.resolve adds the scopes a search of it reads: the project, this person's
    # global scope and, on a shared database, the team's (core.projects.ambient)
    scopes: NotRequired[list[str]]
    # project.list adds the scope's counts (StatsShape without project_id)
    active: NotRequired[int]
    disabled: NotRequired[int]
    expired: NotRequired[int]
    stale: NotRequired[int]
    observations: NotRequired[int]


class AuditEventShape(TypedDict):
    seq: int
    at: str
    memory_id: str
    actor: str  # the agent: which agent, the app ("gui"), the CLI
    person: str | None  # user@host; None: an event from before people were recorded
    machine: str | None  # the machine's name (``machine_id``: its stable id)
    machine_id: str | None
    action: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None


class AddResultShape(TypedDict):
    status: str  # "created", "deduplicated" or "superseded"
    memory: MemoryShape
    superseded_id: NotRequired[str]
    warning: NotRequired[str]  # saved, but a MEMORY.md could not be written


class MemoryResultShape(TypedDict):
    """memory.get, memory.update, memory.remove and memory.restore: the memory as stored."""

    memory: MemoryShape
    warning: NotRequired[str]  # written, but a MEMORY.md could not be (not memory.get)


class SearchHitShape(TypedDict):
    memory: MemoryShape
    score: float
    snippet: str
    matched: str  # "words" (every word), "some_words", "meaning" (semantic search alone)
    similarity: NotRequired[float]  # found by meaning too: cosine similarity to the query


class SearchAnswerShape(TypedDict):
    hits: list[SearchHitShape]
    stale: NotRequired[bool]  # answered offline, from this machine's read cache
    warning: NotRequired[str]  # why, in words (with the changes waiting)


class RecallHitShape(TypedDict):
    kind: str  # "memory" or "observation"
    score: float
    snippet: str
    memory: NotRequired[MemoryShape]
    observation: NotRequired[ObservationShape]
    matched: NotRequired[str]  # memories only, as in SearchHitShape


class ChangeShape(TypedDict):
    kind: str  # "new", "edited" or "removed"
    seq: int
    actor: str
    person: str | None  # user@host of the newest change (None: before it was recorded)
    machine: str | None
    id: str
    withheld: bool  # edited into text that reads like an instruction: ``memory`` is None
    memory: MemoryShape | None  # as it is now; None when erased or withheld


class ChangesShape(TypedDict):
    head: int  # the audit point to ask ``since`` next time
    changes: list[ChangeShape]  # newest first
    more: int  # changes past ``limit``, counted
    truncated: bool  # older changes were not read


class ForgottenShape(TypedDict):
    memories: list[str]
    observations: list[str]


class RefusedIdShape(TypedDict):
    id: str
    reason: str


class ForgetResultShape(TypedDict):
    project_id: str
    forgotten: ForgottenShape
    already_forgotten: list[str]
    refused: list[RefusedIdShape]
    warning: NotRequired[str]


class MemoryPageShape(TypedDict):
    memories: list[MemoryShape]
    total: int


class PrecisShape(TypedDict):
    text: str
    bytes: int
    budget: int
    truncated: bool
    path: str
    memory_ids: list[str]


class StatsShape(TypedDict):
    project_id: str
    active: int
    disabled: int
    expired: int
    stale: int
    observations: int


class MemoryMdProblemShape(TypedDict):
    project_id: str
    path: str
    reason: str
    since: str
    attempts: int


class IndexStatusShape(TypedDict):
    model: str | None  # null: search by words only ([search] embedder = "none")
    with_vectors: int
    memories: int
    backfilling: bool
    problem: str | None


class OutboxShape(TypedDict):
    """The offline outbox (``health``, ``status``): writes kept while the database is away."""

    offline: bool  # the database could not be reached when last tried
    waiting: int  # writes queued, not yet in the database
    oldest_queued_at: str | None
    oldest_age_s: float | None
    kept: int  # replayed writes that could not be applied nor proposed (kept aside)
    text: str  # "offline — 3 changes waiting (oldest 2 min)", or "" when all is written


class HealthShape(TypedDict):
    ok: bool
    enabled: bool
    backend: str
    detail: str
    version: str
    protocol: int
    schema_version: int
    db_path: str
    synchronous: str
    problems: list[str]
    memory_md_problems: list[MemoryMdProblemShape]
    semantic_search: IndexStatusShape
    outbox: NotRequired[OutboxShape]  # only where writes may be queued (PostgreSQL)


class ProposalShape(TypedDict):
    id: str
    project_id: str
    title: str
    content: str
    category: str
    importance: int
    tags: list[str]
    ttl_days: int | None
    source: str
    provenance: ProvenanceShape
    state: str  # "proposed", "approved" or "rejected"
    created_at: str
    updated_at: str
    decided_at: str | None
    decided_by: str | None
    memory_id: str | None
    outcome: str | None
    merges: list[str]  # a merge: the ids of the memories approving it supersedes


class SimilarShape(TypedDict):
    memory: MemoryShape
    similarity: float


class InboxItemShape(TypedDict):
    kind: str  # "proposal" or "memory" (an unreviewed memory)
    proposal: NotRequired[ProposalShape]
    memory: NotRequired[MemoryShape]
    members: NotRequired[list[MemoryShape]]  # a merge's memories, as stored now
    similar: SimilarShape | None


class InboxPageShape(TypedDict):
    items: list[InboxItemShape]
    total: int


class DecisionShape(TypedDict):
    id: str
    kind: str
    title: str
    updated_at: str  # the item's version now (what undoing it names)
    status: NotRequired[str]  # approving a proposal: created, deduplicated, superseded
    proposal: NotRequired[ProposalShape]
    memory: NotRequired[MemoryShape]
    warning: NotRequired[str]


class RunShape(TypedDict):
    id: str
    project_id: str
    started_at: str
    finished_at: str
    agent: str
    session_id: str
    source: str
    model: str
    status: str  # "ok" or "failed"
    reason: str | None
    added: int
    proposed: int
    duplicates: int
    invalid: int
    refused: int
    item_ids: list[str]
    summary: str


class ExtractStartedShape(TypedDict):
    started: bool
    run_id: str | None
    reason: str | None

"""Records of the review inbox and of extraction runs (``core.reviewing`` decides on them).

A *proposal* is a memory the extractor suggested while ``[extractor] review`` is on: it
is held apart from memories (not searchable, not listed, not in MEMORY.md, not counted)
until a person approves it, which adds it through the normal rules, or rejects it, which
keeps it (restorable) but out of the inbox. Nothing here is ever deleted.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from enum import StrEnum

from ltm_desktop.core.records import Category, Memory, MemoryDraft, Provenance

PROPOSAL_PREFIX = "prop_"
RUN_PREFIX = "run_"


def new_id(prefix: str, now: float) -> str:
    """Opaque, unique, roughly time-ordered (like memory ids)."""
    return f"{prefix}{int(now * 1000):011x}{secrets.token_hex(5)}"


@dataclass(frozen=True, slots=True)
class MergeMember:
    """A memory a merge proposal would replace, at the version the proposal was made
    from: approving refuses when the memory moved on since (compare-and-swap). Only its
    id and version are kept (no copy of its text, which erasing it must be able to reach)."""

    memory_id: str
    version: float


class ProposalState(StrEnum):
    PROPOSED = "proposed"  # waiting in the inbox
    APPROVED = "approved"  # added as a memory (``memory_id``)
    REJECTED = "rejected"  # kept, out of the inbox; ``reopen`` brings it back


@dataclass(frozen=True, slots=True)
class Proposal:
    """A memory waiting for a person's decision, with the fields a memory would have.

    ``updated_at`` is its version (compare-and-swap, as for memories). Once approved,
    ``memory_id`` is the memory the approval added (or refreshed, ``outcome``
    ``deduplicated``), ``memory_version`` that memory's ``updated_at`` right after, and
    ``superseded_id`` the memory the approval replaced, if any: what undoing it undoes.
    """

    id: str
    project_id: str
    title: str
    content: str
    category: Category
    importance: int
    tags: tuple[str, ...]
    ttl_days: int | None
    signature: str
    source: str  # who proposed it (the memory's ``source`` once approved)
    provenance: Provenance
    state: ProposalState
    created_at: float
    updated_at: float
    decided_at: float | None = None
    decided_by: str | None = None
    memory_id: str | None = None
    outcome: str | None = None  # the AddStatus of the approval
    memory_version: float | None = None
    superseded_id: str | None = None
    # A merge (``core.consolidation``): approving adds this memory and supersedes each of
    # these by it; ``files`` are theirs, carried over to the merged memory.
    merges: tuple[MergeMember, ...] = ()
    files: tuple[str, ...] = ()

    @property
    def is_merge(self) -> bool:
        return bool(self.merges)

    def draft(self) -> MemoryDraft:
        return MemoryDraft(
            content=self.content,
            title=self.title,
            category=self.category,
            importance=self.importance,
            tags=self.tags,
            ttl_days=self.ttl_days,
            files=self.files,
        )


class RunStatus(StrEnum):
    OK = "ok"
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class ExtractionRun:
    """One extraction: what it read, what came of it, or why it failed.

    Counts: ``added`` memories stored at once (review off, listed as unreviewed),
    ``proposed`` held for review, ``duplicates`` already known (nothing new), ``invalid``
    entries of the reply that were not memories, ``refused`` entries that held a secret.
    """

    id: str
    project_id: str
    started_at: float
    finished_at: float
    agent: str
    session_id: str
    source: str
    model: str
    status: RunStatus
    reason: str | None = None
    added: int = 0
    proposed: int = 0
    duplicates: int = 0
    invalid: int = 0
    refused: int = 0
    item_ids: tuple[str, ...] = ()

    def summary(self) -> str:
        """One line for the Activity view and the command line."""
        who = f"{self.agent} session {self.session_id}" if self.session_id else self.agent
        if self.status is RunStatus.FAILED:
            return f"Extraction from {who} failed: {self.reason}"
        parts = [
            f"{count} {label}"
            for count, label in (
                (self.proposed, "proposed"),
                (self.added, "added (unreviewed)"),
                (self.duplicates, "already known"),
                (self.invalid, "invalid"),
                (self.refused, "refused (secrets)"),
            )
            if count
        ]
        return f"Extraction from {who}: {', '.join(parts) or 'nothing worth keeping'}"


@dataclass(frozen=True, slots=True)
class Decision:
    """What an inbox action (approve, reject, reopen) did to one item.

    ``kind`` is ``proposal`` or ``memory`` (an unreviewed memory); ``version`` is the
    item's ``updated_at`` afterwards, which the next write to it names (undo does).
    ``memory`` is the memory an approved proposal went into, or the memory item itself.
    """

    item_id: str
    kind: str
    title: str
    version: float
    proposal: Proposal | None = None
    memory: Memory | None = None
    status: str | None = None  # approving a proposal: created, deduplicated, superseded


@dataclass(frozen=True, slots=True)
class InboxEntry:
    """An item waiting in the inbox with the existing memory most like it (if any)."""

    proposal: Proposal | None
    memory: Memory | None  # an unreviewed memory
    similar: Memory | None = None
    similarity: float = 0.0
    members: tuple[Memory, ...] = ()  # a merge proposal's memories, as stored now

    @property
    def id(self) -> str:
        item = self.proposal or self.memory
        assert item is not None
        return item.id

    @property
    def kind(self) -> str:
        return "proposal" if self.proposal is not None else "memory"


@dataclass(frozen=True, slots=True)
class ExtractionRequest:
    """What to extract from: a transcript file (read in the background), a text, or an
    observation, and whose conversation it was. ``run_id`` names the run in advance, so
    whoever asked can look for its record."""

    project_id: str
    agent: str
    session_id: str
    run_id: str
    transcript_path: str | None = None
    text: str | None = None
    observation_id: str | None = None

    @property
    def source(self) -> str:
        """The provenance's ``source``."""
        if self.transcript_path is not None:
            return self.transcript_path
        if self.observation_id is not None:
            return f"observation {self.observation_id}"
        return "text"

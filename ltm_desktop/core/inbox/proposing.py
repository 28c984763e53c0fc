"""Holding extracted memories: proposals, unreviewed memories, and each run's record.

Runs inside one unit of work (``MemoryStore.write``), like ``writing``: what a run
stores and its record commit together, or nothing does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ltm_desktop.core import writing
from ltm_desktop.core.backend import AuditEntry, WriteTxn
from ltm_desktop.core.inbox.proposals import (
    PROPOSAL_PREFIX,
    ExtractionRun,
    Proposal,
    ProposalState,
    RunStatus,
    new_id,
)
from ltm_desktop.core.inbox.review_steps import PROPOSAL_EDITABLE, audit_proposal, audit_value
from ltm_desktop.core.privacy.screening import Screen
from ltm_desktop.core.records import (
    AddStatus,
    AuditAction,
    Memory,
    MemoryDraft,
    Provenance,
    ReviewState,
)
from ltm_desktop.core.rules import content_signature


@dataclass
class Stored:
    """What storing a run's entries did, for the run's record."""

    added: int = 0
    proposed: int = 0
    duplicates: int = 0
    item_ids: list[str] = field(default_factory=list)
    memories: list[Memory] = field(default_factory=list)  # memories written (MEMORY.md)
    events: list[tuple[str, str]] = field(default_factory=list)  # (item id, action)


def store_extracted(
    txn: WriteTxn,
    project_id: str,
    drafts: list[MemoryDraft],
    provenance: Provenance,
    *,
    review: bool,
    actor: str,
    now: float,
    screen: Screen,
) -> Stored:
    """Validated, secret-free drafts of one run: proposals (``review``) or unreviewed
    memories. Text an active memory (or a waiting proposal) already holds is not stored
    again: a memory is refreshed as by any add, a proposal is left as it is. ``screen``
    as in ``writing.add_memory``, for proposals too."""
    stored = Stored()
    for draft in map(screen.draft, drafts):
        if review:
            proposal = propose(txn, project_id, draft, provenance, actor, now)
            if proposal is None:
                stored.duplicates += 1
                continue
            stored.proposed += 1
            stored.item_ids.append(proposal.id)
            stored.events.append((proposal.id, AuditAction.PROPOSED.value))
            continue
        origin = writing.Origin(review_state=ReviewState.UNREVIEWED, provenance=provenance)
        result = writing.add_memory(txn, project_id, draft, actor, now, origin, screen=screen)
        stored.memories.append(result.memory)
        if result.status is AddStatus.DEDUPLICATED:
            stored.duplicates += 1
            stored.events.append((result.memory.id, AuditAction.DEDUPLICATED.value))
            continue
        stored.added += 1
        stored.item_ids.append(result.memory.id)
        stored.events.append((result.memory.id, AuditAction.CREATED.value))
        if result.superseded_id is not None:
            stored.memories.append(txn.get_memory(result.superseded_id))
            stored.events.append((result.superseded_id, AuditAction.SUPERSEDED.value))
    return stored


def propose(
    txn: WriteTxn,
    project_id: str,
    draft: MemoryDraft,
    provenance: Provenance,
    actor: str,
    now: float,
) -> Proposal | None:
    """Hold a validated draft for review; None when its text is already a memory of the
    scope or a waiting proposal (nothing new to decide)."""
    signature = content_signature(draft.content)
    if txn.find_active(project_id, signature) or txn.pending_proposal(project_id, signature):
        return None
    proposal = Proposal(
        id=new_id(PROPOSAL_PREFIX, now),
        project_id=project_id,
        title=str(draft.title),
        content=draft.content,
        category=draft.category,  # type: ignore[arg-type]  # validated
        importance=0 if draft.importance is None else draft.importance,  # validated: set
        tags=tuple(draft.tags),
        ttl_days=draft.ttl_days,
        signature=signature,
        source=actor,
        provenance=provenance,
        state=ProposalState.PROPOSED,
        created_at=now,
        updated_at=now,
    )
    txn.insert_proposal(proposal)
    after = {name: audit_value(name, getattr(proposal, name)) for name in PROPOSAL_EDITABLE}
    audit_proposal(txn, proposal, actor, now, AuditAction.PROPOSED, None, after)
    return proposal


def record_run(txn: WriteTxn, run: ExtractionRun, actor: str) -> None:
    """The run's record, and an audit event on its id so the Activity view shows it."""
    txn.insert_run(run)
    action = AuditAction.EXTRACTED if run.status is RunStatus.OK else AuditAction.EXTRACTION_FAILED
    after: dict[str, Any] = {
        "title": run.summary(),
        "status": run.status.value,
        "agent": run.agent,
        "session_id": run.session_id,
        "source": run.source,
        "model": run.model,
    }
    if run.reason:
        after["reason"] = run.reason
    for name in ("added", "proposed", "duplicates", "invalid", "refused"):
        after[name] = getattr(run, name)
    txn.record(AuditEntry(run.finished_at, run.id, run.project_id, actor, action, None, after))

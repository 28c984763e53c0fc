"""Merge proposals: held in the Inbox, approved, undone.

A merge proposal names the memories it replaces at the versions the merge was written
from. Approving it (in one unit of work) checks that every one is still active at that
version (else Conflict, nothing written), adds the merged memory through the normal add
(dedup and supersede apply), and supersedes each member by it. Undoing the approval
takes the merged memory back to the Trash and brings the members back; rejecting changes
no memory at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from ltm_desktop.core import writing
from ltm_desktop.core.backend import WriteTxn
from ltm_desktop.core.errors import Conflict, ConflictReason, NotFound
from ltm_desktop.core.inbox.proposals import (
    PROPOSAL_PREFIX,
    Decision,
    MergeMember,
    Proposal,
    ProposalState,
    new_id,
)
from ltm_desktop.core.inbox.review_steps import (
    PROPOSAL_EDITABLE,
    Outcome,
    approved,
    audit_proposal,
    audit_value,
    edited_fields,
    remove_added,
    restore_replaced,
)
from ltm_desktop.core.privacy.screening import Screen
from ltm_desktop.core.records import AddStatus, AuditAction, Memory, MemoryDraft, Provenance
from ltm_desktop.core.rules import content_signature
from ltm_desktop.core.versions import same_version

CONSOLIDATOR_ACTOR = "consolidator"  # who proposes merges (the source of merged memories)


def is_current(memory: Memory, member: MergeMember) -> bool:
    """The memory is active and still at the version the merge was written from."""
    return not memory.disabled and same_version(memory.updated_at, member.version)


def members_of(txn: WriteTxn, proposal: Proposal) -> list[Memory]:
    """The merge's memories as stored now; Conflict (naming the first) when one was
    edited, removed or erased since the merge was proposed."""
    found: list[Memory] = []
    for member in proposal.merges:
        try:
            memory = txn.get_memory(member.memory_id)
        except NotFound:
            raise Conflict(
                f"memory {member.memory_id} of merge proposal {proposal.id} was erased; "
                "nothing was written: reject this proposal",
                reason=ConflictReason.REMOVED,
            ) from None
        if memory.disabled:
            raise Conflict(
                f"“{memory.title}” ({memory.id}), one of the memories proposal {proposal.id} "
                "merges, was removed since; nothing was written: reject this proposal",
                reason=ConflictReason.REMOVED,
                current=memory,
            )
        if not same_version(memory.updated_at, member.version):
            raise Conflict(
                f"“{memory.title}” ({memory.id}), one of the memories proposal {proposal.id} "
                "merges, was edited since; nothing was written: reject this proposal and "
                "run consolidate again",
                reason=ConflictReason.STALE,
                current=memory,
            )
        found.append(memory)
    return found


def propose_merge(
    txn: WriteTxn,
    draft: MemoryDraft,
    members: Sequence[Memory],
    provenance: Provenance,
    actor: str,
    now: float,
) -> Proposal | None:
    """Hold the merged memory of ``members`` (a validated, secret-free draft) for review;
    None when a member moved on since it was read, or waits in another merge already."""
    project_id = members[0].project_id
    pending = {m.memory_id for p in txn.pending_merges(project_id) for m in p.merges}
    for seen in members:
        if seen.id in pending or seen.project_id != project_id:
            return None
        try:
            current = txn.get_memory(seen.id)
        except NotFound:
            return None
        if not is_current(current, MergeMember(seen.id, seen.updated_at)):
            return None
    proposal = Proposal(
        id=new_id(PROPOSAL_PREFIX, now),
        project_id=project_id,
        title=str(draft.title),
        content=draft.content,
        category=draft.category,  # type: ignore[arg-type]  # validated
        importance=0 if draft.importance is None else draft.importance,
        tags=tuple(draft.tags),
        ttl_days=draft.ttl_days,
        signature=content_signature(draft.content),
        source=actor,
        provenance=provenance,
        state=ProposalState.PROPOSED,
        created_at=now,
        updated_at=now,
        merges=tuple(MergeMember(m.id, m.updated_at) for m in members),
        files=tuple(draft.files),
    )
    txn.insert_proposal(proposal)
    after = {name: audit_value(name, getattr(proposal, name)) for name in PROPOSAL_EDITABLE}
    after["merges"] = [m.id for m in members]
    audit_proposal(txn, proposal, actor, now, AuditAction.PROPOSED, None, after)
    return proposal


def approve_merge(
    txn: WriteTxn,
    before: Proposal,
    actor: str,
    now: float,
    changes: dict[str, Any],
    *,
    screen: Screen,
) -> Outcome:
    """Add the merged memory (with validated ``changes``) and supersede every member by it.

    The caller checked the proposal's version and state. If the merged text is already an
    active memory's (a member's, or another's), that memory is refreshed and kept, and the
    other members are superseded by it."""
    members = members_of(txn, before)
    edited = replace(before, **changes)
    if edited.content != before.content:
        edited = replace(edited, signature=content_signature(edited.content))
    origin = writing.Origin(source=before.source, provenance=before.provenance, approved=True)
    result = writing.add_memory(
        txn, before.project_id, edited.draft(), actor, now, origin, screen=screen
    )
    merged = result.memory
    outcome = Outcome(Decision(before.id, "proposal", edited.title, before.updated_at))
    outcome.memories.append(merged)
    add_action = "deduplicated" if result.status is AddStatus.DEDUPLICATED else "created"
    if result.superseded_id is not None:
        superseded = txn.get_memory(result.superseded_id)
        outcome.memories.append(superseded)
        outcome.events.append((superseded, AuditAction.SUPERSEDED.value))
    for member in members:
        current = txn.get_memory(member.id)
        if current.id == merged.id or current.disabled:  # kept, or superseded just now
            continue
        gone = writing.set_disabled(txn, member.id, True, actor, now, superseded_by=merged.id)
        outcome.memories.append(gone)
        outcome.events.append((gone, AuditAction.SUPERSEDED.value))
    after = approved(before, edited, actor, now, merged, result.status.value, result.superseded_id)
    txn.save_proposal(before, after)
    old, new = edited_fields(before, after)
    old["state"] = before.state.value
    new.update(
        state=after.state.value,
        memory_id=merged.id,
        status=result.status.value,
        merged=[m.memory_id for m in before.merges],
    )
    audit_proposal(txn, after, actor, now, AuditAction.APPROVED, old, new)
    outcome.decision = Decision(
        before.id,
        "proposal",
        after.title,
        after.updated_at,
        proposal=after,
        memory=merged,
        status=result.status.value,
    )
    outcome.events[:0] = [(after, AuditAction.APPROVED.value), (merged, add_action)]
    return outcome


def undo_merge(txn: WriteTxn, proposal: Proposal, actor: str, now: float, outcome: Outcome) -> None:
    """Take back an approved merge: the merged memory goes to the Trash (Conflict if it
    changed since; a refreshed one, there before, stays) and every memory the approval
    superseded comes back."""
    if proposal.memory_id is None:
        return
    remove_added(txn, proposal, actor, now, outcome, "merge proposal")
    replaced = [m.memory_id for m in proposal.merges]
    if proposal.superseded_id is not None:
        replaced.append(proposal.superseded_id)
    restore_replaced(txn, replaced, proposal.memory_id, actor, now, outcome)

"""The review inbox's decisions: propose, approve, reject, reopen, and recording runs.

Each function runs inside one unit of work (``MemoryStore.write``), like ``writing``:
it reads through the ``WriteTxn``, decides, and writes, so a decision and its audit
events commit together or not at all.

An inbox item is a proposal (``prop_...``) or an unreviewed memory (``mem_...``).
Approving a proposal adds it through ``writing.add_memory`` at that moment, so dedup
and supersede apply against the memories as they are then: if the same text was added
meanwhile, approving adds nothing and refreshes that memory (the proposal records it
as ``deduplicated`` into it). Reopening undoes an approval or a rejection: the memory
an approval created goes to the Trash (refused if it changed since), the one it
superseded comes back, and the proposal waits in the inbox again.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ltm_desktop.core import writing
from ltm_desktop.core.backend import AuditEntry, WriteTxn
from ltm_desktop.core.consolidation import merge_review
from ltm_desktop.core.errors import Conflict, ConflictReason, InvalidInput
from ltm_desktop.core.inbox.proposals import (
    PROPOSAL_PREFIX,
    Decision,
    Proposal,
    ProposalState,
)
from ltm_desktop.core.inbox.review_steps import (
    Outcome,
    approved,
    audit_proposal,
    check_proposal_state,
    check_proposal_version,
    edited_fields,
    remove_added,
    restore_replaced,
)
from ltm_desktop.core.privacy.screening import Screen
from ltm_desktop.core.records import (
    AddStatus,
    AuditAction,
    Memory,
    ReviewState,
)
from ltm_desktop.core.rules import content_signature
from ltm_desktop.core.versions import check_version, next_version


def is_proposal_id(item_id: str) -> bool:
    return item_id.startswith(PROPOSAL_PREFIX)


# -- deciding -----------------------------------------------------------------


def approve(
    txn: WriteTxn,
    item_id: str,
    actor: str,
    now: float,
    changes: dict[str, Any],
    expected_updated_at: float | None = None,
    *,
    screen: Screen,
    into: str | None = None,
) -> Outcome:
    """Approve a proposal (added as a memory now) or an unreviewed memory (kept), with
    validated ``changes`` applied first (edit, then approve); ``screen`` as in
    ``writing.add_memory``. ``into``: the scope a proposal's memory goes to (default: the
    proposal's own; it stays in its own Inbox, and undoing takes the memory back from
    there). An unreviewed memory is approved where it is, and a merge in its own scope."""
    if is_proposal_id(item_id):
        return _approve_proposal(
            txn, item_id, actor, now, changes, expected_updated_at, screen, into
        )
    before = txn.get_memory(item_id)
    check_version(before, expected_updated_at)
    _check_unreviewed(before)
    if into is not None and into != before.project_id:
        raise InvalidInput(
            f"memory {item_id} is approved in its own scope; move it afterwards", "into"
        )
    current = before
    outcome = Outcome(Decision(item_id, "memory", before.title, before.updated_at))
    if changes:
        _, current = writing.update_memory(txn, item_id, changes, actor, now, screen=screen)
        if current != before:
            outcome.events.append((current, AuditAction.UPDATED.value))
    after = replace(current, review_state=None, reviewed_at=now)
    txn.save_memory(current, after)
    old, new = {"review_state": ReviewState.UNREVIEWED.value}, {"review_state": None}
    txn.record(AuditEntry(now, item_id, after.project_id, actor, AuditAction.APPROVED, old, new))
    outcome.decision = Decision(item_id, "memory", after.title, after.updated_at, memory=after)
    outcome.memories.append(after)
    outcome.events.append((after, AuditAction.APPROVED.value))
    return outcome


def _check_unreviewed(memory: Memory) -> None:
    if memory.disabled:
        raise Conflict(
            f"memory {memory.id} is in the trash; it is not in the inbox",
            reason=ConflictReason.REMOVED,
            current=memory,
        )
    if memory.review_state is None:
        raise Conflict(
            f"memory {memory.id} is not waiting for review",
            reason=ConflictReason.ALREADY_REVIEWED,
            current=memory,
        )


def _approve_proposal(
    txn: WriteTxn,
    proposal_id: str,
    actor: str,
    now: float,
    changes: dict[str, Any],
    expected_updated_at: float | None,
    screen: Screen,
    into: str | None = None,
) -> Outcome:
    before = txn.get_proposal(proposal_id)
    check_proposal_version(before, expected_updated_at)
    check_proposal_state(before, (ProposalState.PROPOSED,))
    target = into or before.project_id
    if before.is_merge:
        if target != before.project_id:
            raise InvalidInput(f"merge {proposal_id} is approved in its own scope", "into")
        return merge_review.approve_merge(txn, before, actor, now, changes, screen=screen)
    edited = replace(before, **changes)
    if edited.content != before.content:
        edited = replace(edited, signature=content_signature(edited.content))
    origin = writing.Origin(source=before.source, provenance=before.provenance, approved=True)
    draft = edited.draft()
    result = writing.add_memory(txn, target, draft, actor, now, origin, screen=screen)
    after = approved(
        before, edited, actor, now, result.memory, result.status.value, result.superseded_id
    )
    txn.save_proposal(before, after)
    old: dict[str, Any] = {"state": before.state.value}
    new: dict[str, Any] = {
        "state": after.state.value,
        "memory_id": result.memory.id,
        "status": result.status.value,
    }
    if target != before.project_id:  # where it went, in the proposal's own history
        new["into"] = target
    edited_old, edited_new = edited_fields(before, after)
    old.update(edited_old)
    new.update(edited_new)
    audit_proposal(txn, after, actor, now, AuditAction.APPROVED, old, new)
    decision = Decision(
        proposal_id,
        "proposal",
        after.title,
        after.updated_at,
        proposal=after,
        memory=result.memory,
        status=result.status.value,
    )
    outcome = Outcome(decision, [result.memory])
    outcome.events.append((after, AuditAction.APPROVED.value))
    add_action = "deduplicated" if result.status is AddStatus.DEDUPLICATED else "created"
    outcome.events.append((result.memory, add_action))
    if result.superseded_id is not None:
        superseded = txn.get_memory(result.superseded_id)
        outcome.memories.append(superseded)
        outcome.events.append((superseded, AuditAction.SUPERSEDED.value))
    return outcome


def reject(
    txn: WriteTxn,
    item_id: str,
    actor: str,
    now: float,
    expected_updated_at: float | None = None,
) -> Outcome:
    """Reject a proposal (kept, out of the inbox) or an unreviewed memory (to the Trash)."""
    if not is_proposal_id(item_id):
        before = txn.get_memory(item_id)
        check_version(before, expected_updated_at)
        _check_unreviewed(before)
        after = writing.set_disabled(txn, item_id, True, actor, now, action=AuditAction.REJECTED)
        decision = Decision(item_id, "memory", after.title, after.updated_at, memory=after)
        return Outcome(decision, [after], [(after, AuditAction.REJECTED.value)])
    proposal = txn.get_proposal(item_id)
    check_proposal_version(proposal, expected_updated_at)
    check_proposal_state(proposal, (ProposalState.PROPOSED,))
    rejected = replace(
        proposal,
        state=ProposalState.REJECTED,
        updated_at=next_version(proposal.updated_at, now),
        decided_at=now,
        decided_by=actor,
    )
    txn.save_proposal(proposal, rejected)
    old, new = {"state": proposal.state.value}, {"state": rejected.state.value}
    audit_proposal(txn, rejected, actor, now, AuditAction.REJECTED, old, new)
    decision = Decision(item_id, "proposal", rejected.title, rejected.updated_at, rejected)
    return Outcome(decision, [], [(rejected, AuditAction.REJECTED.value)])


def reopen(
    txn: WriteTxn,
    item_id: str,
    actor: str,
    now: float,
    expected_updated_at: float | None = None,
) -> Outcome:
    """Put an approved or rejected item back in the inbox (undo of approve or reject)."""
    if not is_proposal_id(item_id):
        return _reopen_memory(txn, item_id, actor, now, expected_updated_at)
    before = txn.get_proposal(item_id)
    check_proposal_version(before, expected_updated_at)
    check_proposal_state(before, (ProposalState.APPROVED, ProposalState.REJECTED))
    outcome = Outcome(Decision(item_id, "proposal", before.title, before.updated_at))
    if before.state is ProposalState.APPROVED and before.is_merge:
        merge_review.undo_merge(txn, before, actor, now, outcome)
    elif before.state is ProposalState.APPROVED:
        _undo_approval(txn, before, actor, now, outcome)
    after = replace(
        before,
        state=ProposalState.PROPOSED,
        updated_at=next_version(before.updated_at, now),
        decided_at=None,
        decided_by=None,
        memory_id=None,
        outcome=None,
        memory_version=None,
        superseded_id=None,
    )
    txn.save_proposal(before, after)
    old = {"state": before.state.value, "memory_id": before.memory_id}
    audit_proposal(txn, after, actor, now, AuditAction.REOPENED, old, {"state": after.state.value})
    outcome.decision = Decision(item_id, "proposal", after.title, after.updated_at, after)
    outcome.events.append((after, AuditAction.REOPENED.value))
    return outcome


def _undo_approval(
    txn: WriteTxn, proposal: Proposal, actor: str, now: float, outcome: Outcome
) -> None:
    """Take back the memory an approval created (and bring back the one it replaced).

    A refreshed memory (``deduplicated``) was there before: it stays, with its count; one
    removed by someone since leaves nothing of the approval to take back."""
    if proposal.memory_id is None or proposal.outcome == AddStatus.DEDUPLICATED.value:
        return
    if txn.get_memory(proposal.memory_id).disabled:
        return
    remove_added(txn, proposal, actor, now, outcome, "proposal")
    if proposal.superseded_id is not None:
        restore_replaced(txn, [proposal.superseded_id], proposal.memory_id, actor, now, outcome)


def _reopen_memory(
    txn: WriteTxn, memory_id: str, actor: str, now: float, expected_updated_at: float | None
) -> Outcome:
    before = txn.get_memory(memory_id)
    check_version(before, expected_updated_at)
    if before.provenance is None:
        raise Conflict(
            f"memory {memory_id} was not extracted; only extracted memories go to the inbox",
            reason=ConflictReason.NOT_EXTRACTED,
            current=before,
        )
    if before.disabled:  # a rejected one: restore it, still unreviewed
        after = writing.set_disabled(txn, memory_id, False, actor, now, action=AuditAction.REOPENED)
        after = _mark_unreviewed(txn, after, actor, now)
    elif before.review_state is None:
        after = _mark_unreviewed(txn, before, actor, now)
    else:
        raise Conflict(
            f"memory {memory_id} is already waiting for review",
            reason=ConflictReason.ALREADY_UNREVIEWED,
            current=before,
        )
    decision = Decision(memory_id, "memory", after.title, after.updated_at, memory=after)
    return Outcome(decision, [after], [(after, AuditAction.REOPENED.value)])


def _mark_unreviewed(txn: WriteTxn, memory: Memory, actor: str, now: float) -> Memory:
    if memory.review_state is ReviewState.UNREVIEWED:
        return memory
    after = replace(memory, review_state=ReviewState.UNREVIEWED)
    txn.save_memory(memory, after)
    old, new = {"review_state": None}, {"review_state": ReviewState.UNREVIEWED.value}
    txn.record(AuditEntry(now, memory.id, memory.project_id, actor, AuditAction.REOPENED, old, new))
    return after


def unmark_reviewed(
    txn: WriteTxn,
    memory_id: str,
    actor: str,
    now: float,
    earlier: tuple[float | None, ReviewState | None],
    expected_updated_at: float | None = None,
) -> Memory:
    """Take back a Keep (its undo): the memory gets the review time and inbox state it had
    before, ``earlier``, so a stale candidate is one again. Audited as a review."""
    reviewed_at, review_state = earlier
    before = txn.get_memory(memory_id)
    check_version(before, expected_updated_at)
    after = replace(before, reviewed_at=reviewed_at, review_state=review_state)
    txn.save_memory(before, after)
    old: dict[str, Any] = {"reviewed_at": before.reviewed_at}
    new: dict[str, Any] = {"reviewed_at": reviewed_at}
    if before.review_state != review_state:
        old["review_state"] = None if before.review_state is None else before.review_state.value
        new["review_state"] = None if review_state is None else review_state.value
    txn.record(AuditEntry(now, memory_id, after.project_id, actor, AuditAction.REVIEWED, old, new))
    return after

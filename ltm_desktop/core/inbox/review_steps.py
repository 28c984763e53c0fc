"""Steps every inbox decision shares: checking a proposal's version and state, and
auditing it. Kept apart from ``reviewing`` so that the merge decisions
(``core.consolidation.merge_review``), which ``reviewing`` hands merge proposals to, use
the same steps without importing it back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ltm_desktop.core import writing
from ltm_desktop.core.backend import AuditEntry, WriteTxn
from ltm_desktop.core.errors import Conflict, ConflictReason, NotFound, StaleEdit
from ltm_desktop.core.inbox.proposals import Decision, Proposal, ProposalState
from ltm_desktop.core.records import AddStatus, AuditAction, Memory
from ltm_desktop.core.versions import next_version, same_version

# Fields of a proposal that an approval may change (edit, then approve).
PROPOSAL_EDITABLE = ("title", "content", "category", "importance", "tags", "ttl_days")


@dataclass
class Outcome:
    """A decision and the memories it wrote (their MEMORY.md files follow)."""

    decision: Decision
    memories: list[Memory] = field(default_factory=list)
    events: list[tuple[Memory | Proposal, str]] = field(default_factory=list)


def audit_value(name: str, value: Any) -> Any:
    """A proposal field as the audit history records it (JSON-ready)."""
    if name == "category":
        return value.value
    if name == "tags":
        return list(value)
    return value


def audit_proposal(
    txn: WriteTxn,
    proposal: Proposal,
    actor: str,
    now: float,
    action: AuditAction,
    before: dict[str, Any] | None,
    after: dict[str, Any],
) -> None:
    after = {"title": proposal.title, **after}  # the Activity view names it by its title
    txn.record(AuditEntry(now, proposal.id, proposal.project_id, actor, action, before, after))


def check_proposal_version(proposal: Proposal, expected_updated_at: float | None) -> None:
    if expected_updated_at is not None and not same_version(
        proposal.updated_at, expected_updated_at
    ):
        raise StaleEdit(
            f"proposal {proposal.id} was changed by someone else since you read it; "
            "nothing was written: read it again, then retry",
            reason=ConflictReason.STALE,
        )


def check_proposal_state(proposal: Proposal, wanted: tuple[ProposalState, ...]) -> None:
    if proposal.state not in wanted:
        raise Conflict(
            f"proposal {proposal.id} is already {proposal.state.value}",
            reason=ConflictReason.already(proposal.state.value),
        )


def edited_fields(before: Proposal, after: Proposal) -> tuple[dict[str, Any], dict[str, Any]]:
    """The editable fields an approval changed: (old values, new values), for its event."""
    old: dict[str, Any] = {}
    new: dict[str, Any] = {}
    for name in PROPOSAL_EDITABLE:
        if getattr(after, name) != getattr(before, name):
            old[name] = audit_value(name, getattr(before, name))
            new[name] = audit_value(name, getattr(after, name))
    return old, new


def remove_added(
    txn: WriteTxn, proposal: Proposal, actor: str, now: float, outcome: Outcome, what: str
) -> None:
    """Undoing an approval: the memory it created goes to the Trash, unless it was only
    refreshed (``deduplicated``: it was there before) or is in the Trash already. One
    changed since the approval is not taken back (Conflict): the person's or an agent's
    edit is not undone along with the approval. ``what``: the proposal's kind, for the
    message."""
    if proposal.memory_id is None or proposal.outcome == AddStatus.DEDUPLICATED.value:
        return
    memory = txn.get_memory(proposal.memory_id)
    if memory.disabled:
        return
    if proposal.memory_version is not None and not same_version(
        memory.updated_at, proposal.memory_version
    ):
        raise Conflict(
            f"memory {memory.id}, added by approving {what} {proposal.id}, was changed "
            "since; nothing was written: remove that memory instead",
            reason=ConflictReason.STALE,
            current=memory,
        )
    removed = writing.set_disabled(txn, memory.id, True, actor, now)
    outcome.memories.append(removed)
    outcome.events.append((removed, AuditAction.REMOVED.value))


def restore_replaced(
    txn: WriteTxn,
    memory_ids: Sequence[str],
    by: str,
    actor: str,
    now: float,
    outcome: Outcome,
) -> None:
    """Undoing an approval: each of ``memory_ids`` that the approval's memory ``by``
    superseded comes back (one erased since, or superseded by something else, stays)."""
    for memory_id in memory_ids:
        try:
            old = txn.get_memory(memory_id)
        except NotFound:  # erased since: nothing to bring back
            continue
        if old.disabled and old.superseded_by == by:
            restored = writing.set_disabled(txn, old.id, False, actor, now)
            outcome.memories.append(restored)
            outcome.events.append((restored, AuditAction.RESTORED.value))


def approved(
    before: Proposal,
    edited: Proposal,
    actor: str,
    now: float,
    memory: Memory,
    status: str,
    superseded_id: str | None,
) -> Proposal:
    """``edited`` (``before`` with the person's edits) as approved into ``memory``: what
    undoing the approval takes back (``memory_id``, ``memory_version``, ``superseded_id``)."""
    return replace(
        edited,
        state=ProposalState.APPROVED,
        updated_at=next_version(before.updated_at, now),
        decided_at=now,
        decided_by=actor,
        memory_id=memory.id,
        outcome=status,
        memory_version=memory.updated_at,
        superseded_id=superseded_id,
    )

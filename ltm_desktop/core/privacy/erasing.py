"""Real erasure: the one physical deletion, for memories already in the trash.

Removing is soft (restorable); erasing is not. It is refused for an active memory
(remove it first), so erasing is always a second, deliberate step. The memory's row and
everything made from its text go, its audit events keep who did what and when but their
content is replaced by a tombstone (who erased it, when), and an ``erased`` event says so.
A proposal whose approval made it is erased with it (the same text, and its events are
tombstoned too). The store then makes sure its files keep no copy (``MemoryStore.scrub``). Backups taken
before are copies the store cannot reach: erasing says so.
"""

from __future__ import annotations

from typing import Any

from ltm_desktop.core.backend import AuditEntry, WriteTxn
from ltm_desktop.core.bulk.rules import each_alone
from ltm_desktop.core.errors import Conflict, ConflictReason, LtmError
from ltm_desktop.core.records import AuditAction, Memory


def tombstone(actor: str, now: float) -> dict[str, Any]:
    return {"erased_at": float(now), "erased_by": actor}


def erase_memory(txn: WriteTxn, memory_id: str, actor: str, now: float) -> Memory:
    """Erase one memory of the trash (Conflict ``active`` for one that is not)."""
    memory = txn.get_memory(memory_id)
    if not memory.disabled:
        raise Conflict(
            f"memory {memory_id} is not in the trash; remove it first, then erase it",
            reason=ConflictReason.ACTIVE,
            current=memory,
        )
    stone = tombstone(actor, now)
    for proposal_id in txn.approved_into(memory_id):  # the extractor's copy of the text
        txn.tombstone_history(proposal_id, stone)
        txn.erase_proposal(proposal_id)
    txn.tombstone_history(memory_id, stone)
    txn.erase_memory(memory_id)
    txn.record(
        AuditEntry(now, memory_id, memory.project_id, actor, AuditAction.ERASED, None, stone)
    )
    return memory


def empty_trash(txn: WriteTxn, project_id: str, actor: str, now: float) -> list[Memory]:
    """Erase every memory in the scope's trash; returns them as they were."""
    return [erase_memory(txn, memory_id, actor, now) for memory_id in txn.trashed_ids(project_id)]


def erase_each(
    txn: WriteTxn, memory_ids: list[str], actor: str, now: float
) -> tuple[list[Memory], list[tuple[str, LtmError]]]:
    """Erase each memory of the trash: (erased as they were, refused with why). One that
    is not in the trash (restored meanwhile) or is gone is refused alone (``each_alone``)."""
    done, refused = each_alone(
        memory_ids, lambda memory_id: erase_memory(txn, memory_id, actor, now)
    )
    return [memory for _, memory in done], [(memory_ids[i], exc) for i, exc in refused]

"""Moving or copying memories to another scope (part of MemoryService): promote a
project's memory to global, demote a global one, or hand one to another project.

The rule: the memory is added to the target scope the way any add is (an identical
memory there is refreshed instead of duplicated, a near-duplicate there is superseded),
so the target never holds the same text twice; a move then sends the original to the
trash, marked as superseded by its new copy. The source is audited as ``moved``
(``disabled``, ``superseded_by``: the memory in the target scope) or ``copied`` (``to``:
the target scope, ``as``: the memory there), the target's memory as any add. The whole batch is one transaction: all of it happens, or none.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from ltm_desktop.core import rules, writing
from ltm_desktop.core.backend import AuditEntry, MemoryStore, WriteTxn
from ltm_desktop.core.errors import Conflict, ConflictReason, InvalidInput
from ltm_desktop.core.kernel import WriteKernel
from ltm_desktop.core.privacy.screening import Screen
from ltm_desktop.core.records import (
    AddResult,
    AddStatus,
    AuditAction,
    Memory,
    MemoryDraft,
)
from ltm_desktop.core.versions import check_expected, check_version

MAX_BATCH = 10_000


@dataclass(frozen=True, slots=True)
class Transferred:
    """One memory moved or copied: the source as it is now, and what the add in the target
    scope did (``created``, ``deduplicated`` onto an identical one, or ``superseded`` a
    near-duplicate there, whose id it names)."""

    source: Memory
    result: AddResult


def _draft(memory: Memory) -> MemoryDraft:
    return MemoryDraft(
        memory.content,
        memory.title,
        memory.category,
        memory.importance,
        list(memory.tags),
        memory.ttl_days,
    )


def transfer(
    txn: WriteTxn,
    versions: Mapping[str, float | None],
    target: str,
    actor: str,
    now: float,
    *,
    copy: bool,
    screen: Screen,
) -> list[Transferred]:
    """Move (or copy) each memory, as of the version named, into ``target`` (its text
    screened for secrets again, as any add is)."""
    done: list[Transferred] = []
    for memory_id, expected in versions.items():
        source = txn.get_memory(memory_id)
        check_version(source, expected)
        if source.disabled:
            raise Conflict(
                f"memory {memory_id} is in the trash; restore it first",
                reason=ConflictReason.REMOVED,
                current=source,
            )
        if source.project_id == target:
            raise InvalidInput(f"memory {memory_id} is already in that scope", "project_id")
        result = writing.add_memory(txn, target, _draft(source), actor, now, screen=screen)
        moved = {"to": target, "as": result.memory.id}
        if copy:
            txn.record(
                AuditEntry(
                    now, source.id, source.project_id, actor, AuditAction.COPIED, None, moved
                )
            )
        else:  # to the trash, superseded by its copy in the target scope
            source = writing.set_disabled(
                txn,
                source.id,
                True,
                actor,
                now,
                superseded_by=result.memory.id,
                action=AuditAction.MOVED,
            )
        done.append(Transferred(source, result))
    return done


class ScopeTransfers:
    """Moves and copies between scopes: ``MemoryService.transfers``."""

    def __init__(self, store: MemoryStore, kernel: WriteKernel, screen: Screen) -> None:
        self.store = store
        self._kernel = kernel
        self._screen = screen

    def transfer_memories(
        self,
        versions: Mapping[str, float | None],
        target: str,
        actor: str,
        *,
        copy: bool = False,
    ) -> list[Transferred]:
        """Move (or, with ``copy``, copy) memories to scope ``target``; ``versions`` maps
        each id to the ``updated_at`` the caller saw (None: any). All or nothing: a
        memory that changed meanwhile (Conflict), is in the trash or is already in the
        target scope fails the whole batch."""
        actor = rules.check_actor(actor)
        target = rules.check_project_id(target)
        if not 1 <= len(versions) <= MAX_BATCH:
            raise InvalidInput(f"give 1 to {MAX_BATCH} memories to move or copy", "ids")
        checked = {rules.check_text(i, "id"): check_expected(v) for i, v in versions.items()}
        self.store.get_project(target)  # NotFound for a scope nobody registered
        with self._kernel.write() as write:
            txn = write.txn
            done = transfer(txn, checked, target, actor, write.now, copy=copy, screen=self._screen)
            for t in done:
                write.record(t.result.memory, _added(t.result), actor)
            for t in done if not copy else ():
                write.record(t.source, "removed", actor)
            write.touch(txn.get_memory(i) for t in done if (i := t.result.superseded_id))
            write.wake_backfill = True  # the new memories' vectors
        overlay = self._kernel.overlay
        return [replace(t, result=replace(t.result, memory=overlay(t.result.memory))) for t in done]


def _added(result: AddResult) -> str:
    return "deduplicated" if result.status is AddStatus.DEDUPLICATED else "created"

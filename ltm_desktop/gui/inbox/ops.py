"""The inbox's writes, run on a worker: approve, reject, reopen (the undo of either; its
redo decides again).

Like ``ops``, every write names the version of the item the person saw
(``expected_updated_at``); an item changed since is not written but reported, and the
inbox reloads to show it as it is now. A batch carries on past an item that cannot be
decided, but stops at a storage error.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from ltm_desktop.core.errors import Conflict, ConflictReason, LtmError, StorageError
from ltm_desktop.core.inbox.proposals import Decision
from ltm_desktop.core.records import GUI_ACTOR
from ltm_desktop.core.service import MemoryService

InboxAction = Literal["approve", "reject", "reopen"]


@dataclass(frozen=True)
class InboxWrite:
    """One decision the person asked for, on an item (``prop_…`` or ``mem_…``) as of the
    version they saw."""

    item_id: str
    action: InboxAction
    seen: float
    changes: dict[str, Any] = field(default_factory=dict)  # edit, then approve
    undoes: InboxAction | None = None  # a reopen: the decision it takes back (redo's)
    into: str | None = None  # approve: the scope the memory goes to (None: its own)


@dataclass
class InboxOutcome:
    done: list[Decision] = field(default_factory=list)
    writes: list[InboxWrite] = field(default_factory=list)  # of ``done``, in order
    changed: list[tuple[str, Conflict]] = field(default_factory=list)  # moved on meanwhile
    failed: list[tuple[str, LtmError]] = field(default_factory=list)
    # the database failed part-way: what was decided before stays decided (and undoable)
    stopped: StorageError | None = None
    not_done: int = 0


def perform(service: MemoryService, write: InboxWrite) -> Decision:
    if write.action == "approve":
        if write.into is not None:  # "Global (you)" before its first memory: its row now
            service.ensure_scope(write.into)
        return service.inbox.approve(
            write.item_id,
            GUI_ACTOR,
            changes=write.changes,
            expected_updated_at=write.seen,
            into=write.into,
        )
    if write.action == "reject":
        return service.inbox.reject(write.item_id, GUI_ACTOR, expected_updated_at=write.seen)
    return service.inbox.reopen(write.item_id, GUI_ACTOR, expected_updated_at=write.seen)


def inverse(outcome: InboxOutcome) -> tuple[InboxWrite, ...]:
    """The writes that take back what ``outcome`` did, as of the versions it left: a
    decision's undo reopens the item; the redo of that decides again, with the same edits."""
    back: list[InboxWrite] = []
    for write, decision in zip(outcome.writes, outcome.done, strict=True):
        if write.action != "reopen":
            back.append(
                InboxWrite(
                    decision.item_id,
                    "reopen",
                    decision.version,
                    write.changes,
                    write.action,
                    write.into,  # kept for the redo
                )
            )
        elif write.undoes is not None:
            back.append(
                InboxWrite(
                    decision.item_id, write.undoes, decision.version, write.changes, into=write.into
                )
            )
    return tuple(back)


def run(service: MemoryService, writes: Iterable[InboxWrite]) -> InboxOutcome:
    """Each decision in its own transaction; a storage error stops the rest."""
    outcome = InboxOutcome()
    pending = list(writes)
    for index, write in enumerate(pending):
        try:
            outcome.done.append(perform(service, write))
            outcome.writes.append(write)
        except StorageError as exc:
            outcome.stopped, outcome.not_done = exc, len(pending) - index
            break
        except Conflict as exc:
            if exc.reason is ConflictReason.STALE or (exc.reason and exc.reason.is_already):
                outcome.changed.append((write.item_id, exc))
            else:
                outcome.failed.append((write.item_id, exc))
        except LtmError as exc:
            outcome.failed.append((write.item_id, exc))
    return outcome

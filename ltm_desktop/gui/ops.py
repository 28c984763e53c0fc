"""One function per user action; each runs on a worker and talks only to the service.

Every write is made as the actor ``gui`` and is a compare-and-swap: it names the
``updated_at`` of the memory the person saw (a ``Write``), and a memory that changed
since is not written but comes back as a ``WriteConflict`` for the person to settle.
Bulk actions run in batches (one transaction each, ``core.bulk``) and carry on past a
memory that cannot be changed (and say which), but stop at a storage error: then the
database itself is in trouble and the person must be told at once (what was done
before it stays done, and is said).

While a shared database cannot be reached, edits, removes, restores and new memories go
to this machine's outbox (``core.offline_writes``) and are written when it answers, as
an agent's are; the status bar says how many wait. Actions that need the database itself
(Keep, moves between scopes) say so.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, Literal, TypeVar

from ltm_desktop.core.bulk.rules import Change, Progress
from ltm_desktop.core.bulk.selection import (
    Cancelled,
    FilterSelection,
    resolve,
    transfer_chunked,
    write_chunked,
)
from ltm_desktop.core.errors import Conflict, ConflictReason, DatabaseUnreachable, LtmError
from ltm_desktop.core.offline import QueuedKind
from ltm_desktop.core.offline_view import online_or_cached, visible_memory
from ltm_desktop.core.offline_writes import queue_add, queue_change
from ltm_desktop.core.records import (
    EDITABLE_FIELDS,
    GUI_ACTOR,
    AddResult,
    AddStatus,
    AuditEvent,
    Memory,
    MemoryDraft,
)
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.transfer.between_scopes import Transferred
from ltm_desktop.gui.errors import EditConflict

ACTOR = GUI_ACTOR
Versions = dict[str, float]  # memory id -> the updated_at the person last saw
# What a bulk action acts on: memories as the person saw them, or every memory of a list's
# filters (Select all), which the core resolves on the worker
Target = Versions | FilterSelection
Action = Literal["update", "remove", "restore", "keep", "unreview"]
SETTLED_BY_THE_PERSON = (ConflictReason.STALE, ConflictReason.REMOVED)  # a person can resolve
R = TypeVar("R")
_pausing = threading.Lock()
_paused = 0  # bulk actions running with the collector paused
_resume = False  # whether the collector was on when the first of them paused it


@dataclass(frozen=True)
class Write:
    """One write the person asked for, as of the version of the memory they saw."""

    memory_id: str
    action: Action
    seen: float
    values: dict[str, Any] = field(default_factory=dict)  # what an update sets

    def on(self, version: float) -> Write:
        return replace(self, seen=version)


@dataclass(frozen=True)
class WriteConflict:
    """A write refused because the memory moved on (``stale``) or went to the Trash
    (``removed``); ``since`` is what happened to it after the version the person saw."""

    write: Write
    current: Memory
    reason: ConflictReason
    since: tuple[AuditEvent, ...] = ()

    @property
    def can_overwrite(self) -> bool:
        """Whether doing it anyway, on the current version, can work."""
        if self.write.action == "restore":
            return self.current.disabled
        if self.write.action == "keep":
            return True
        return not self.current.disabled

    def overwrite(self) -> Write:
        return self.write.on(self.current.updated_at)

    def changed_by(self) -> list[str]:
        """Who changed the memory since (each once, in order)."""
        return list(dict.fromkeys(e.actor for e in self.since))


@dataclass
class BulkOutcome:
    done: list[Memory] = field(default_factory=list)
    before: list[Memory] = field(default_factory=list)
    writes: list[Write] = field(default_factory=list)  # of ``done``, in the same order
    failed: list[tuple[str, LtmError]] = field(default_factory=list)
    conflicts: list[WriteConflict] = field(default_factory=list)
    cancelled: int = 0  # writes not made because the person pressed Cancel
    queued: int = 0  # of ``done``, kept in the outbox (the database cannot be reached)


@contextmanager
def collector_paused() -> Iterator[None]:
    """No garbage collection while a write runs on a worker, on again when the last one
    running ends.

    A bulk action builds tens of thousands of objects that live until it ends (each
    memory before and after, the writes that undo them), so the collector runs again and
    again, full collections among them; each holds the GIL for all its length (40-70 ms
    at 10,000 memories on a busy machine), and the UI thread cannot finish a pass
    meanwhile. What the action builds is freed by reference counting once the window
    has it; a cycle made meanwhile waits for the next full collection.

    On again, the first collection would walk everything made meanwhile (25 ms for
    10,000 memories, on the worker, GIL held): it is moved to the oldest generation
    first (``gc.freeze`` then ``gc.unfreeze``, two list splices), where only a full
    collection looks, at the collector's usual pace, once most of it is freed. Not when
    something else froze objects on purpose: that would thaw them.
    """
    global _paused, _resume
    with _pausing:
        if _paused == 0:
            _resume = gc.isenabled()
            gc.disable()
        _paused += 1
    try:
        yield
    finally:
        with _pausing:
            _paused -= 1
            if _paused == 0 and _resume:
                if gc.get_freeze_count() == 0:
                    gc.freeze()
                    gc.unfreeze()
                gc.enable()


def paused(work: Callable[[MemoryService], R]) -> Callable[[MemoryService], R]:
    """``work`` run with the collector paused (``collector_paused``)."""

    def run_paused(service: MemoryService) -> R:
        with collector_paused():
            return work(service)

    return run_paused


def versions_of(service: MemoryService, target: Target) -> Versions:
    """Worker side: the memories a bulk action acts on, with the version of each (those
    of a ``FilterSelection`` as stored now: the person saw a count, not these rows)."""
    return resolve(service, target) if isinstance(target, FilterSelection) else dict(target)


def editable_values(memory: Memory, names: Iterable[str] = EDITABLE_FIELDS) -> dict[str, Any]:
    """The named editable fields as values ``service.update`` accepts."""
    values: dict[str, Any] = {}
    for name in names:
        value = getattr(memory, name)
        if name == "category":
            value = value.value
        elif name == "tags":
            value = list(value)
        values[name] = value
    return values


def conflict_of(service: MemoryService, write: Write, exc: Conflict) -> WriteConflict | None:
    """The conflict to put to the person, or None for one no choice can settle."""
    if exc.reason not in SETTLED_BY_THE_PERSON or exc.reason is None or exc.current is None:
        return None
    since = tuple(e for e in service.history.memory(write.memory_id) if e.at > write.seen)
    return WriteConflict(write, exc.current, exc.reason, since)


def run(
    service: MemoryService,
    writes: Iterable[Write],
    progress: Progress | None = None,
    cancelled: Cancelled | None = None,
) -> BulkOutcome:
    """Make the writes in chunks (``core.bulk_selection.write_chunked``: one transaction,
    one change notification per chunk; each memory checked against the version the person
    saw and audited on its own). A storage error part-way leaves the chunks before it
    written: the writes it stopped are in ``failed`` with that error.

    Args:
        progress: called on the worker after each chunk with (writes settled, of how many).
        cancelled: asked between chunks; once it says True the rest is left undone.
    """
    asked = list(writes)
    if service.offline.queueing():
        return queued(service, asked)
    changes = [Change(w.memory_id, w.action, w.seen, w.values) for w in asked]
    write_of = {id(change): write for change, write in zip(changes, asked, strict=True)}
    chunked = write_chunked(service, changes, ACTOR, progress=progress, cancelled=cancelled)
    result = chunked.result
    outcome = BulkOutcome(cancelled=len(chunked.cancelled))
    for (before, after), change in zip(result.done, result.changes, strict=True):
        outcome.done.append(after)
        outcome.before.append(before)
        outcome.writes.append(write_of[id(change)])
    for change, exc in result.refused:
        write = write_of[id(change)]
        conflict = conflict_of(service, write, exc) if isinstance(exc, Conflict) else None
        if conflict is not None:
            outcome.conflicts.append(conflict)
        else:
            outcome.failed.append((write.memory_id, exc))
    if result.stopped is not None:
        left = [write_of[id(c)] for c in result.not_done]
        if isinstance(result.stopped, DatabaseUnreachable) and service.offline.available:
            service.offline.unreachable(str(result.stopped))  # queued from now on
            later = queued(service, left)
            outcome.done += later.done
            outcome.before += later.before
            outcome.writes += later.writes
            outcome.failed += later.failed
            outcome.queued += later.queued
        else:
            outcome.failed += [(write.memory_id, result.stopped) for write in left]
    return outcome


QUEUED_KINDS = {
    "update": QueuedKind.UPDATE,
    "remove": QueuedKind.REMOVE,
    "restore": QueuedKind.RESTORE,
}


def queued(service: MemoryService, asked: Iterable[Write]) -> BulkOutcome:
    """The writes kept in the outbox while the database cannot be reached (``run``):
    each checked now, and replayed with the version the person saw as its
    compare-and-swap. A memory this machine has not read is refused, and so is an action
    that needs the database."""
    outcome = BulkOutcome()
    for write in asked:
        kind = QUEUED_KINDS.get(write.action)
        try:
            if kind is None:
                raise DatabaseUnreachable(
                    f"{ACTION_WORDS.get(write.action, write.action)} needs the database, "
                    "which cannot be reached now; try again once it answers"
                )
            before, after = queue_change(
                service, write.memory_id, kind, dict(write.values), ACTOR, write.seen
            )
        except LtmError as exc:
            outcome.failed.append((write.memory_id, exc))
            continue
        outcome.done.append(after)
        outcome.before.append(before)
        outcome.writes.append(write)
        outcome.queued += 1
    return outcome


ACTION_WORDS = {"keep": "Keep", "unreview": "Taking back a Keep"}


def writes(action: Action, versions: Versions, **values: Any) -> list[Write]:
    """The same write to each memory, as of the version the person saw of it."""
    return [Write(memory_id, action, seen, values) for memory_id, seen in versions.items()]


def each(values: dict[str, dict[str, Any]], versions: Versions) -> list[Write]:
    """Per-memory field values (undo of an importance change)."""
    return [Write(i, "update", versions[i], v) for i, v in values.items()]


def inverse(outcome: BulkOutcome) -> tuple[Write, ...]:
    """The writes that take back what ``outcome`` did (as of the versions it left): undo
    of a redo, redo of an undo."""
    back: list[Write] = []
    for write, before, after in zip(outcome.writes, outcome.before, outcome.done, strict=True):
        if write.action == "remove":
            back.append(Write(after.id, "restore", after.updated_at))
        elif write.action == "restore":
            back.append(Write(after.id, "remove", after.updated_at))
        elif write.action == "update":
            old = editable_values(before, write.values)
            back.append(Write(after.id, "update", after.updated_at, old))
        elif write.action == "keep":
            back.append(Write(after.id, "unreview", after.updated_at, review_values(before)))
        elif write.action == "unreview":
            back.append(Write(after.id, "keep", after.updated_at))
    return tuple(back)


def review_values(memory: Memory) -> dict[str, Any]:
    """What a Keep changes, as it was: what its undo puts back."""
    state = memory.review_state
    return {
        "reviewed_at": memory.reviewed_at,
        "review_state": None if state is None else state.value,
    }


@dataclass
class TransferOutcome:
    """A move or copy: what was done, the writes that take it back, and why it stopped
    short (``stopped``, or a cancel) leaving ``not_done`` memories where they were."""

    done: list[Transferred]
    back: list[Write]
    stopped: LtmError | None = None
    not_done: int = 0
    cancelled: bool = False


def transfer(
    service: MemoryService,
    selected: Target,
    target: str,
    copy: bool,
    progress: Progress | None = None,
    cancelled: Cancelled | None = None,
) -> TransferOutcome:
    """Move or copy to scope ``target``, in chunks; with the writes that take it back (the
    copies removed, what they superseded and the originals restored), as of the versions
    left."""
    chunked = transfer_chunked(
        service,
        versions_of(service, selected),
        target,
        ACTOR,
        copy=copy,
        progress=progress,
        cancelled=cancelled,
    )
    done = chunked.done
    back: list[Write] = []
    for t in done:
        added = t.result.memory
        if t.result.status is not AddStatus.DEDUPLICATED:
            back.append(Write(added.id, "remove", added.updated_at))
        if t.result.superseded_id is not None:
            superseded = service.get(t.result.superseded_id)
            back.append(Write(superseded.id, "restore", superseded.updated_at))
        if not copy:
            back.append(Write(t.source.id, "restore", t.source.updated_at))
    return TransferOutcome(done, back, chunked.stopped, chunked.not_done, chunked.cancelled)


def add(service: MemoryService, project_id: str, draft: MemoryDraft) -> AddResult:
    """A new memory; while the database cannot be reached, queued in the outbox (its id
    is its id once written)."""
    if not service.offline.queueing():
        try:
            return service.add(project_id, draft, ACTOR)
        except DatabaseUnreachable as exc:
            if not service.offline.available:
                raise
            service.offline.unreachable(str(exc))
    files = tuple(draft.files or ())
    memory = queue_add(service, project_id, draft, ACTOR, files=files)
    return AddResult(AddStatus.QUEUED, memory)


def load(service: MemoryService, memory_id: str) -> Memory:
    """The memory; while the shared database cannot be reached, as this machine sees it
    (the read cache with the changes waiting applied)."""
    offline = service.offline
    return online_or_cached(
        offline, lambda: service.get(memory_id), lambda: visible_memory(offline, memory_id)[0]
    )


def save_edit(service: MemoryService, write: Write) -> tuple[Memory, Memory, bool]:
    """The editor's save: (before, after, whether it was queued in the outbox).

    Raises:
        EditConflict: the memory changed (or went to the Trash) since the editor loaded it.
    """
    outcome = run(service, [write])
    if outcome.conflicts:
        raise EditConflict(outcome.conflicts[0])
    if outcome.failed:
        raise outcome.failed[0][1]
    return outcome.before[0], outcome.done[0], outcome.queued > 0

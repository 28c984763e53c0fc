"""The user's write actions: run each op off the UI thread, then record its undo and say what happened.

Every write names the version of the memory the person saw, and a memory changed by
someone else since is not overwritten: the person is asked (reload, overwrite,
compare). Versions this window wrote itself are followed forward, so a change made
here never makes the person's next action on that memory a conflict.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal

from ltm_desktop.core.bulk.rules import BATCH_SIZE, TAG_EDITS
from ltm_desktop.core.bulk.selection import FilterSelection
from ltm_desktop.core.records import AddResult, AddStatus, Memory, MemoryDraft
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui import ops
from ltm_desktop.gui.editing.conflicts import OVERWRITE, RELOAD, ConflictResolver
from ltm_desktop.gui.editing.own_writes import Written, follow, remembered, written_by
from ltm_desktop.gui.errors import ErrorReporter
from ltm_desktop.gui.outcome_text import (
    QUEUED_SAVE,
    add_result_text,
    bulk_text,
    titled,
    transfer_text,
)
from ltm_desktop.gui.tasks import TaskRunner
from ltm_desktop.gui.undo import UndoEntry, UndoStack

Done = Callable[[Any], None]
Failed = Callable[[BaseException], None]
MakeUndo = Callable[[ops.BulkOutcome], UndoEntry]  # runs on the worker
Planned = list[ops.Write] | Callable[[MemoryService], list[ops.Write]]  # made now, or there
# a write's outcome, its undo entry, and the versions it left (made on the worker)
Ran = tuple[ops.BulkOutcome, "UndoEntry | None", Written]
KNOWN_WRITES = 50_000  # versions of our own writes remembered (a bulk action: 500 a batch)


def _versions(memories: list[Memory]) -> ops.Versions:
    return {m.id: m.updated_at for m in memories}


UNDO_HINT = " Ctrl+Z undoes it."
REDO_HINT = " Ctrl+Shift+Z redoes it."


class MemoryActions(QObject):
    """Deletes, restores, edits, adds and undo, shared by every panel.

    Signals:
        message(str): a one-line outcome for the status bar.
        added(object): an AddResult of a memory created here.
        saved(object): the Memory as stored after an edit made here.
        reload_requested(str): after a conflict, the person asked to see this memory as stored.
        writing(bool): writes started (True) or all have come back (False): bulk buttons
            wait meanwhile.
        progress(str, int, int): a bulk action (what it does) wrote so many of so many
            (only for those of more than one chunk).
    """

    message = Signal(str)
    writing = Signal(bool)
    progress = Signal(str, int, int)
    _progress = Signal(str, int, int)  # from a worker: delivered on the UI thread
    added = Signal(object)
    saved = Signal(object)
    reload_requested = Signal(str)

    def __init__(
        self,
        service: MemoryService,
        runner: TaskRunner,
        undo: UndoStack,
        errors: ErrorReporter,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._service = service
        self._runner = runner
        self._undo = undo
        self._errors = errors
        self.conflicts = ConflictResolver(errors, self)
        # (memory id, a version in milliseconds) -> the version a write of ours made of it;
        # the newest KNOWN_WRITES only (one per write for the whole session otherwise)
        self._next: OrderedDict[tuple[str, int], float] = OrderedDict()
        # Undo and redo entries whose writes are not memory writes (the inbox's), by type.
        self.undo_handlers: dict[type, Callable[[UndoEntry], None]] = {}
        self.redo_handlers: dict[type, Callable[[UndoEntry], None]] = {}
        self._writes_running = 0
        self._cancels: set[threading.Event] = set()  # one per write running
        self._resolving = False  # a write on a FilterSelection is running
        self._progress.connect(self.on_progress, Qt.ConnectionType.QueuedConnection)

    # -- versions ---------------------------------------------------------

    def latest(self, memory_id: str, seen: float) -> float:
        """``seen``, moved past every write this window made on top of it."""
        return follow(self._next, memory_id, seen)

    def note_written(self, memory_id: str, before: float, after: float) -> None:
        """Our write turned version ``before`` of the memory into ``after``."""
        self._note(written_by(memory_id, before, after))

    def _note(self, written: Written) -> None:
        self._next.update(written)
        while len(self._next) > KNOWN_WRITES:  # forgotten: a write from a view that old
            self._next.popitem(last=False)  # is refused as a conflict, never lost

    # -- running writes ---------------------------------------------------

    def _run(
        self, work: Callable[[MemoryService], Any], done: Done, failed: Failed | None, doing: str
    ) -> None:
        service = self._service
        self._runner.run(
            lambda: work(service), done, failed or (lambda exc: self._errors.report(exc, doing))
        )

    def _plan(self, target: ops.Target, action: ops.Action, **values: Any) -> Planned:
        """The writes of ``action`` on ``target``: made now for memories the person saw,
        or by the worker for a ``FilterSelection`` (the core finds its memories)."""
        if isinstance(target, FilterSelection):
            return lambda service: ops.writes(action, ops.versions_of(service, target), **values)
        return ops.writes(action, target, **values)

    def _write(
        self,
        writes: Planned,
        doing: str,
        said: str,
        make_undo: MakeUndo | None = None,
        on_done: Done | None = None,
        push: Callable[[UndoEntry], None] | None = None,
        hint: str = UNDO_HINT,
    ) -> None:
        """Run ``writes`` on a worker, in chunks the person may cancel between; ``said`` is
        the message, ``{what}`` naming what was done. ``make_undo`` runs on the worker too
        (thousands of writes to invert), its entry goes to ``push`` (the undo stack), and
        ``hint`` says which key takes it back."""
        resolving = not isinstance(writes, list)
        if not writes:
            return
        if resolving and self._resolving:
            self.message.emit("Still working on the last change to these memories; wait for it.")
            return
        known = {} if resolving else dict(self._next)  # a copy for the worker: seen past ours

        def planned(service: MemoryService) -> list[ops.Write]:
            if callable(writes):
                return writes(service)  # as stored now: nothing of ours to move past
            return [w.on(follow(known, w.memory_id, w.seen)) for w in writes]

        cancel = threading.Event()

        def report(done: int, of: int) -> None:
            self._progress.emit(doing, done, of)

        def work(service: MemoryService) -> Ran:
            outcome = ops.run(service, planned(service), report, cancel.is_set)
            entry = make_undo(outcome) if make_undo is not None and outcome.done else None
            return outcome, entry, remembered(outcome)

        def end() -> None:
            self._cancels.discard(cancel)
            self._resolving = self._resolving and not resolving
            self._running(-1)

        def failed(exc: BaseException) -> None:
            end()
            self._errors.report(exc, doing)

        def finished(result: Ran) -> None:
            end()
            outcome, entry, written = result
            self._note(written)
            self._bulk_done(outcome, doing, said, entry, push, hint)
            if outcome.conflicts:
                self._settle(
                    outcome.conflicts,
                    doing,
                    lambda again: self._write(again, doing, said, make_undo, on_done, push, hint),
                )
            if on_done is not None:
                on_done(outcome)

        self._cancels.add(cancel)
        self._resolving = self._resolving or resolving
        self._running(+1)
        self._run(ops.paused(work), finished, failed, doing)

    def cancel(self) -> None:
        """Stop the bulk actions running after the chunk each is writing (what was done
        stays done, and undoable)."""
        for cancel in self._cancels:
            cancel.set()

    def on_progress(self, doing: str, done: int, of: int) -> None:
        if of > BATCH_SIZE:  # one chunk or less: done before it could be read
            what = doing[:1].upper() + doing[1:]
            self.message.emit(f"{what}: {done:,} of {of:,} done…")
            self.progress.emit(what, done, of)

    def _running(self, step: int) -> None:
        self._writes_running += step
        if self._writes_running == (1 if step > 0 else 0):
            self.writing.emit(step > 0)

    def _settle(
        self,
        conflicts: list[ops.WriteConflict],
        doing: str,
        overwrite: Callable[[list[ops.Write]], None],
    ) -> None:
        def chosen(choice: str) -> None:
            if choice == OVERWRITE:
                overwrite([c.overwrite() for c in conflicts if c.can_overwrite])
            elif choice == RELOAD:
                self.reload_requested.emit(conflicts[0].current.id)

        self.conflicts.ask(conflicts, doing, chosen)

    def _bulk_done(
        self,
        outcome: ops.BulkOutcome,
        doing: str,
        said: str,
        undo: UndoEntry | None,
        push: Callable[[UndoEntry], None] | None = None,
        hint: str = UNDO_HINT,
    ) -> None:
        if undo is not None:
            (push or self._undo.push)(undo)
        if outcome.failed:
            memory_id, exc = outcome.failed[0]
            self._errors.report(exc, f"{doing} {memory_id}")
        self.message.emit(bulk_text(outcome, said, hint if undo is not None else ""))

    # -- bulk -------------------------------------------------------------

    def delete(self, target: ops.Target, on_done: Done | None = None) -> None:
        """Move to the Trash the memories, as of the versions the person saw (every active
        one of a ``FilterSelection``)."""

        def undo(outcome: ops.BulkOutcome) -> UndoEntry:
            back = ops.writes("restore", _versions(outcome.done))
            return UndoEntry(f"Delete {titled(outcome.done)}", tuple(back))

        if isinstance(target, FilterSelection):
            target = target.narrowed(include_disabled=False, only_disabled=False)
        writes = self._plan(target, "remove")
        self._write(writes, "move to the Trash", "Moved to the Trash: {what}.", undo, on_done)

    def restore(self, target: ops.Target, on_done: Done | None = None) -> None:
        def undo(outcome: ops.BulkOutcome) -> UndoEntry:
            again = ops.writes("remove", _versions(outcome.done))
            return UndoEntry(f"Restore {titled(outcome.done)}", tuple(again))

        if isinstance(target, FilterSelection):
            target = target.narrowed(only_disabled=True)
        writes = self._plan(target, "restore")
        self._write(writes, "restore", "Restored {what}.", undo, on_done)

    def keep(self, versions: ops.Versions) -> None:
        def undo(outcome: ops.BulkOutcome) -> UndoEntry:
            return UndoEntry(f"Keep {titled(outcome.done)}", ops.inverse(outcome))

        writes = ops.writes("keep", versions)
        self._write(writes, "mark as reviewed", "Kept (marked reviewed) {what}.", undo)

    def set_importance(self, versions: ops.Versions, importance: int) -> None:
        self.set_fields(versions, {"importance": importance}, f"Importance {importance}")

    def set_fields(self, target: ops.Target, values: dict[str, Any], label: str) -> None:
        """The same field values on every memory (bulk edit); undone as one step."""

        def undo(outcome: ops.BulkOutcome) -> UndoEntry:
            names = {"tags" if name in TAG_EDITS else name for name in values}
            old = {m.id: ops.editable_values(m, names) for m in outcome.before}
            back = ops.each(old, _versions(outcome.done))
            return UndoEntry(f"{label} for {titled(outcome.done)}", tuple(back))

        writes = self._plan(target, "update", **values)
        self._write(writes, "change the memories", f"{label} for {{what}}.", undo)

    def transfer(self, target: ops.Target, scope: str, scope_name: str, copy: bool) -> None:
        """Move or copy memories to another scope (the core dedups and audits), in chunks
        the person may cancel between; one undo."""
        verb = "Copy" if copy else "Move"
        doing = f"{verb.lower()} the memories"
        cancel = threading.Event()

        def report(done: int, of: int) -> None:
            self._progress.emit(doing, done, of)

        def done(result: ops.TransferOutcome) -> None:
            self._cancels.discard(cancel)
            self._running(-1)
            if result.back:
                titles = titled([t.source for t in result.done])
                self._undo.push(UndoEntry(f"{verb} {titles} to {scope_name}", tuple(result.back)))
            self.message.emit(transfer_text(result, copy, scope_name))
            if result.stopped is not None:
                self._errors.report(result.stopped, f"{doing} (the rest)")

        def failed(exc: BaseException) -> None:
            self._cancels.discard(cancel)
            self._running(-1)
            self._errors.report(exc, doing)

        self._cancels.add(cancel)
        self._running(+1)

        self._run(
            ops.paused(lambda s: ops.transfer(s, target, scope, copy, report, cancel.is_set)),
            done,
            failed,
            doing,
        )

    # -- single memory ----------------------------------------------------

    def add(self, project_id: str, draft: MemoryDraft, on_done: Done, on_error: Failed) -> None:
        def done(result: AddResult) -> None:
            if result.status != AddStatus.DEDUPLICATED:
                created = {result.memory.id: result.memory.updated_at}
                label = f"Add “{result.memory.title}”"
                self._undo.push(UndoEntry(label, tuple(ops.writes("remove", created))))
            self.message.emit(add_result_text(result))
            self.added.emit(result)
            on_done(result)

        self._run(lambda s: ops.add(s, project_id, draft), done, on_error, "add the memory")

    def save_edit(
        self, base: Memory, changes: dict[str, Any], on_done: Done, on_error: Failed
    ) -> None:
        """The editor's save, as of the version it loaded (EditConflict if that moved on)."""
        write = ops.Write(base.id, "update", self.latest(base.id, base.updated_at), changes)

        def done(result: tuple[Memory, Memory, bool]) -> None:
            before, after, queued = result
            self.note_written(after.id, write.seen, after.updated_at)
            if after != before:
                old = ops.Write(
                    after.id, "update", after.updated_at, ops.editable_values(before, changes)
                )
                self._undo.push(UndoEntry(f"Edit “{after.title}”", (old,)))
                said = QUEUED_SAVE if queued else "Saved “{title}”. Ctrl+Z undoes it."
                self.message.emit(said.format(title=after.title))
            self.saved.emit(after)
            on_done(after)

        self._run(lambda s: ops.save_edit(s, write), done, on_error, "save the memory")

    def apply_version(
        self, memory_id: str, values: dict[str, Any], seen: float, label: str
    ) -> None:
        """Set fields to earlier values ("revert to this version") of the memory as the person
        saw it at ``seen``; undoable."""

        def undo(outcome: ops.BulkOutcome) -> UndoEntry:
            before, after = outcome.before[0], outcome.done[0]
            old = ops.editable_values(before, values)
            return UndoEntry(label, (ops.Write(memory_id, "update", after.updated_at, old),))

        def done(outcome: ops.BulkOutcome) -> None:
            if outcome.done:
                self.saved.emit(outcome.done[0])

        write = ops.Write(memory_id, "update", seen, values)
        self._write([write], "revert the memory", f"{label}: done.", undo, done)

    # -- undo -------------------------------------------------------------

    def undo(self) -> None:
        self._replay("undo", self._undo.pop(), self.undo_handlers)

    def redo(self) -> None:
        self._replay("redo", self._undo.pop_redo(), self.redo_handlers)

    def _replay(
        self, mode: str, entry: UndoEntry | None, handlers: dict[type, Callable[[UndoEntry], None]]
    ) -> None:
        """Write an undo (or redo) entry back; what it did goes on the other stack (an
        entry of another kind, such as the Inbox's, goes to its own handler)."""
        if entry is None:
            self.message.emit(f"Nothing to {mode}.")
            return
        handler = handlers.get(type(entry.writes[0])) if entry.writes else None
        if handler is not None:
            handler(entry)
            return
        writes = [w for w in entry.writes if isinstance(w, ops.Write)]

        def back(outcome: ops.BulkOutcome) -> UndoEntry:
            return UndoEntry(entry.label, ops.inverse(outcome))

        def push(inverse: UndoEntry) -> None:
            if mode == "undo":
                self._undo.push_redo(inverse)
            else:
                self._undo.push(inverse, keep_redo=True)

        since = self._service.now()

        def written(outcome: ops.BulkOutcome) -> None:  # the Activity tab marks its events
            self._undo.note_replayed(mode, [m.id for m in outcome.done], since, self._service.now())

        done_text = f"{'Undone' if mode == 'undo' else 'Redone'}: {entry.label}."
        hint = REDO_HINT if mode == "undo" else UNDO_HINT  # where the entry went
        self._write(writes, f"{mode} {entry.label}", done_text, back, written, push=push, hint=hint)

"""The person's inbox decisions: run off the UI thread, then record the undo and say
what happened (Ctrl+Z reopens what was approved or rejected; Ctrl+Shift+Z decides again)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from PySide6.QtCore import QObject, Signal

from ltm_desktop.core.inbox.proposals import Decision
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.errors import ErrorReporter, describe
from ltm_desktop.gui.formatting import count_label
from ltm_desktop.gui.inbox import ops as inbox_ops
from ltm_desktop.gui.inbox.ops import InboxOutcome, InboxWrite
from ltm_desktop.gui.tasks import TaskRunner
from ltm_desktop.gui.undo import UndoEntry, UndoStack

Versions = dict[str, float]  # item id -> the updated_at the person saw
NoteWritten = Callable[[str, float, float], None]
VERBS = {"approve": "Approved", "reject": "Rejected", "reopen": "Back in the Inbox:"}
Mode = Literal["do", "undo", "redo"]


def _what(done: list[Decision]) -> str:
    return f"“{done[0].title}”" if len(done) == 1 else count_label(len(done), "item")


class InboxActions(QObject):
    """Approve, edit-then-approve, reject, their undo and its redo.

    Signals:
        message(str): a one-line outcome for the status bar.
        finished(): a batch is written (or refused): the inbox reloads.
    """

    message = Signal(str)
    finished = Signal()

    def __init__(
        self,
        service: MemoryService,
        runner: TaskRunner,
        undo: UndoStack,
        errors: ErrorReporter,
        note_written: NoteWritten | None = None,
        parent: QObject | None = None,
    ) -> None:
        """``note_written(memory id, version seen, version now)``: a memory this window
        changed (so its other views do not take our own write for someone else's)."""
        super().__init__(parent)
        self._service = service
        self._runner = runner
        self._undo = undo
        self._errors = errors
        self._note_written = note_written

    def approve(
        self,
        versions: Versions,
        changes: dict[str, object] | None = None,
        into: str | None = None,
    ) -> None:
        """``into``: the scope the memories go to (None: each proposal's own)."""
        writes = [
            InboxWrite(i, "approve", seen, dict(changes or {}), into=into)
            for i, seen in versions.items()
        ]
        self._run(writes, "approve")

    def reject(self, versions: Versions) -> None:
        self._run([InboxWrite(i, "reject", seen) for i, seen in versions.items()], "reject")

    def undo(self, entry: UndoEntry) -> None:
        """Run an undo entry of ours (reopen writes), from the window's Ctrl+Z."""
        writes = [w for w in entry.writes if isinstance(w, InboxWrite)]
        self._run(writes, "reopen", "undo", entry.label)

    def redo(self, entry: UndoEntry) -> None:
        """Run a redo entry of ours (the decisions again), from the window's Ctrl+Shift+Z."""
        writes = [w for w in entry.writes if isinstance(w, InboxWrite)]
        self._run(writes, writes[0].action if writes else "approve", "redo", entry.label)

    def _run(
        self, writes: list[InboxWrite], action: str, mode: Mode = "do", label: str = ""
    ) -> None:
        if not writes:
            return
        service = self._service
        doing = f"{mode} {label}" if mode != "do" else f"{action} in the Inbox"
        self._runner.run(
            lambda: inbox_ops.run(service, writes),
            lambda outcome: self._done(outcome, action, mode, label),
            lambda exc: self._failed(exc, doing),
        )

    def _failed(self, exc: BaseException, doing: str) -> None:
        self._errors.report(exc, doing)
        self.finished.emit()

    def _done(self, outcome: InboxOutcome, action: str, mode: Mode, label: str) -> None:
        for write, decision in zip(outcome.writes, outcome.done, strict=True):
            memory = decision.memory
            if self._note_written and decision.kind == "memory" and memory is not None:
                self._note_written(memory.id, write.seen, memory.updated_at)
        text = ""
        if outcome.done:
            back = inbox_ops.inverse(outcome)
            if mode == "undo":
                self._undo.push_redo(UndoEntry(label, back))
                text = f"Undone: {label}."
            elif mode == "redo":
                self._undo.push(UndoEntry(label, back), keep_redo=True)
                text = f"Redone: {label}."
            else:
                label = f"{action.capitalize()} {_what(outcome.done)}"
                self._undo.push(UndoEntry(label, back))
                text = f"{VERBS[action]} {_what(outcome.done)}. Ctrl+Z undoes it."
        if outcome.changed:
            n = count_label(len(outcome.changed), "item")
            text += f" {n} changed meanwhile (nothing was written to them); the Inbox shows them as they are now."
        if outcome.failed:
            item_id, exc = outcome.failed[0]
            text += f" {len(outcome.failed)} could not be changed: {describe(exc)[1]}"
            self._errors.report(exc, f"{action} {item_id}")
        if outcome.stopped is not None:
            text += f" Stopped: {count_label(outcome.not_done, 'item')} not done."
            self._errors.report(outcome.stopped, f"{action} in the Inbox")
        self.message.emit(text.strip())
        self.finished.emit()

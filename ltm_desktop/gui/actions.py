"""The user's write actions: run each op off the UI thread, then record its undo and say what happened."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal

from ltm_desktop.core.records import AddResult, AddStatus, Memory, MemoryDraft
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui import ops
from ltm_desktop.gui.errors import ErrorReporter, describe
from ltm_desktop.gui.formatting import count_label
from ltm_desktop.gui.tasks import TaskRunner
from ltm_desktop.gui.undo import UndoEntry, UndoStack

Done = Callable[[Any], None]
Failed = Callable[[BaseException], None]


def _ids(memories: list[Memory]) -> list[str]:
    return [m.id for m in memories]


def _title(memories: list[Memory]) -> str:
    return (
        f"“{memories[0].title}”"
        if len(memories) == 1
        else count_label(len(memories), "memory", "memories")
    )


class MemoryActions(QObject):
    """Deletes, restores, edits, adds and undo, shared by every panel.

    Signals:
        message(str): a one-line outcome for the status bar.
        added(object): an AddResult of a memory created here.
        saved(object): the Memory as stored after an edit made here.
    """

    message = Signal(str)
    added = Signal(object)
    saved = Signal(object)

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

    def _run(
        self, work: Callable[[MemoryService], Any], done: Done, failed: Failed | None, doing: str
    ) -> None:
        service = self._service
        self._runner.run(
            lambda: work(service), done, failed or (lambda exc: self._errors.report(exc, doing))
        )

    def _bulk_done(self, outcome: ops.BulkOutcome, verb: str, undo: UndoEntry | None) -> None:
        if outcome.done and undo is not None:
            self._undo.push(undo)
        text = f"{verb} {_title(outcome.done)}." if outcome.done else ""
        if outcome.done and undo is not None:
            text += " Ctrl+Z undoes it."
        if outcome.failed:
            memory_id, exc = outcome.failed[0]
            text += f" {len(outcome.failed)} could not be changed: {describe(exc)[1]}"
            self._errors.report(exc, f"{verb.lower()} {memory_id}")
        self.message.emit(text.strip())

    # -- bulk -------------------------------------------------------------

    def delete(self, ids: list[str], on_done: Done | None = None) -> None:
        def done(outcome: ops.BulkOutcome) -> None:
            removed = _ids(outcome.done)
            entry = UndoEntry(f"Delete {_title(outcome.done)}", lambda s: ops.restore(s, removed))
            self._bulk_done(outcome, "Moved to the Trash:", entry)
            if on_done:
                on_done(outcome)

        if ids:
            self._run(lambda s: ops.soft_delete(s, ids), done, None, "move to the Trash")

    def restore(self, ids: list[str], on_done: Done | None = None) -> None:
        def done(outcome: ops.BulkOutcome) -> None:
            back = _ids(outcome.done)
            entry = UndoEntry(f"Restore {_title(outcome.done)}", lambda s: ops.soft_delete(s, back))
            self._bulk_done(outcome, "Restored", entry)
            if on_done:
                on_done(outcome)

        if ids:
            self._run(lambda s: ops.restore(s, ids), done, None, "restore")

    def keep(self, ids: list[str]) -> None:
        if ids:
            self._run(
                lambda s: ops.keep(s, ids),
                lambda outcome: self._bulk_done(outcome, "Kept (marked reviewed)", None),
                None,
                "mark as reviewed",
            )

    def set_importance(self, ids: list[str], importance: int) -> None:
        def done(outcome: ops.BulkOutcome) -> None:
            old = {m.id: {"importance": m.importance} for m in outcome.before}
            entry = UndoEntry(
                f"Importance of {_title(outcome.done)}", lambda s: ops.apply_each(s, old)
            )
            self._bulk_done(outcome, f"Importance {importance} for", entry)

        if ids:
            self._run(
                lambda s: ops.set_importance(s, ids, importance), done, None, "change importance"
            )

    # -- single memory ----------------------------------------------------

    def add(self, project_id: str, draft: MemoryDraft, on_done: Done, on_error: Failed) -> None:
        def done(result: AddResult) -> None:
            if result.status != AddStatus.DEDUPLICATED:
                new_id = result.memory.id
                self._undo.push(
                    UndoEntry(
                        f"Add “{result.memory.title}”", lambda s: ops.soft_delete(s, [new_id])
                    )
                )
            self.message.emit(add_result_text(result))
            self.added.emit(result)
            on_done(result)

        self._run(lambda s: ops.add(s, project_id, draft), done, on_error, "add the memory")

    def save_edit(
        self, base: Memory, changes: dict[str, Any], on_done: Done, on_error: Failed
    ) -> None:
        def done(result: tuple[Memory, Memory]) -> None:
            before, after = result
            if after != before:
                old = ops.editable_values(before, changes)
                new = ops.editable_values(after, changes)
                self._undo.push(
                    UndoEntry(
                        f"Edit “{after.title}”",
                        lambda s: ops.apply_values(s, after.id, old, expected=new),
                    )
                )
                self.message.emit(f"Saved “{after.title}”. Ctrl+Z undoes it.")
            self.saved.emit(after)
            on_done(after)

        self._run(lambda s: ops.save_edit(s, base, changes), done, on_error, "save the memory")

    def apply_version(self, memory_id: str, values: dict[str, Any], label: str) -> None:
        """Set fields to earlier values ("revert to this version"), undoable."""

        def work(service: MemoryService) -> tuple[Memory, Memory]:
            before = service.get(memory_id)
            return before, ops.apply_values(service, memory_id, values)

        def done(result: tuple[Memory, Memory]) -> None:
            before, after = result
            old = ops.editable_values(before, values)
            self._undo.push(UndoEntry(label, lambda s: ops.apply_values(s, memory_id, old)))
            self.message.emit(f"{label}: done. Ctrl+Z undoes it.")
            self.saved.emit(after)

        self._run(work, done, None, "revert the memory")

    # -- undo -------------------------------------------------------------

    def undo(self) -> None:
        entry = self._undo.pop()
        if entry is None:
            self.message.emit("Nothing to undo.")
            return

        def done(result: object) -> None:
            if isinstance(result, ops.BulkOutcome) and result.failed:
                self._errors.report(result.failed[0][1], f"undo {entry.label}")
            self.message.emit(f"Undone: {entry.label}.")

        self._run(entry.work, done, None, f"undo {entry.label}")


def add_result_text(result: AddResult) -> str:
    """What the core did with a new memory, in words."""
    title = result.memory.title
    if result.status == AddStatus.DEDUPLICATED:
        return (
            f"Already known: this text matches “{title}”. Nothing new was added; "
            "that memory was refreshed instead."
        )
    if result.status == AddStatus.SUPERSEDED:
        return (
            f"Created “{title}”. It replaced a near-duplicate memory, which moved to the "
            "Trash (restore it from there if you need both)."
        )
    return f"Created “{title}”."

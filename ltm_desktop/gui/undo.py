"""Undo for this session's deletes, edits, importance changes, reverts, restores and inbox
decisions (Ctrl+Z), and redo of what was undone (Ctrl+Shift+Z, Ctrl+Y): each entry knows
its inverse."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QObject, Signal

from ltm_desktop.gui.inbox_ops import InboxWrite
from ltm_desktop.gui.ops import Write

MAX_ENTRIES = 100


@dataclass(frozen=True)
class UndoEntry:
    """The writes that reverse the action named by ``label``, each as of the version that
    action left (so a later change by someone else is a conflict, not overwritten)."""

    label: str
    writes: tuple[Write, ...] | tuple[InboxWrite, ...]


class UndoStack(QObject):
    """Signals:
    changed(str): the label of what Ctrl+Z would undo now ("" when nothing).
    redo_changed(str): the label of what Ctrl+Shift+Z would redo now ("" when nothing).
    """

    changed = Signal(str)
    redo_changed = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._entries: list[UndoEntry] = []
        self._redo: list[UndoEntry] = []

    def push(self, entry: UndoEntry, *, keep_redo: bool = False) -> None:
        """A new action (which ends what could be redone) or, with ``keep_redo``, the
        undo of something just redone."""
        self._entries.append(entry)
        del self._entries[:-MAX_ENTRIES]
        self.changed.emit(entry.label)
        if not keep_redo and self._redo:
            self._redo.clear()
            self.redo_changed.emit("")

    def push_redo(self, entry: UndoEntry) -> None:
        """What redoes an action just undone."""
        self._redo.append(entry)
        del self._redo[:-MAX_ENTRIES]
        self.redo_changed.emit(entry.label)

    def pop_redo(self) -> UndoEntry | None:
        entry = self._redo.pop() if self._redo else None
        self.redo_changed.emit(self._redo[-1].label if self._redo else "")
        return entry

    def pop(self) -> UndoEntry | None:
        entry = self._entries.pop() if self._entries else None
        self.changed.emit(self.top_label())
        return entry

    def top_label(self) -> str:
        return self._entries[-1].label if self._entries else ""

    def __len__(self) -> int:
        return len(self._entries)

"""Undo for this session's deletes, edits, importance changes, reverts, restores and inbox
decisions (Ctrl+Z), and redo of what was undone (Ctrl+Shift+Z, Ctrl+Y): each entry knows
its inverse."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from PySide6.QtCore import QObject, Signal

from ltm_desktop.gui.inbox.ops import InboxWrite
from ltm_desktop.gui.ops import Write

MAX_ENTRIES = 100
MAX_REPLAYED = 200  # undos and redos remembered for the Activity tab's marks


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
    replayed(): the writes of an undo or redo were noted (``replayed_by``).
    """

    changed = Signal(str)
    redo_changed = Signal(str)
    replayed = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._entries: list[UndoEntry] = []
        self._redo: list[UndoEntry] = []
        # What each undo or redo wrote: (which, the memories, from, until when). Their audit
        # events are ordinary changes by the person; nothing else in them says so.
        self._replayed: list[tuple[str, frozenset[str], float, float]] = []

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

    def note_replayed(
        self, mode: str, memory_ids: Iterable[str], since: float, until: float
    ) -> None:
        """An undo (or redo: ``mode``) wrote to these memories this session, between ``since`` and
        ``until`` (the service's clock, as the audit has it)."""
        self._replayed.append((mode, frozenset(memory_ids), since, until))
        del self._replayed[:-MAX_REPLAYED]
        self.replayed.emit()

    def replayed_by(self, memory_id: str, at: float) -> str | None:
        """Whether the person's write of ``memory_id`` at ``at`` was this session's undo or
        redo: one of them wrote to it then (each writes a memory once, and another write
        of ours to it meanwhile would have made it a conflict)."""
        for mode, memory_ids, since, until in reversed(self._replayed):
            if since <= at <= until and memory_id in memory_ids:
                return mode
        return None

    def top_label(self) -> str:
        return self._entries[-1].label if self._entries else ""

    def __len__(self) -> int:
        return len(self._entries)

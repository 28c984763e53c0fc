"""The window's keys that mean the same wherever the focus is: one application event filter.

Ctrl+Z (and Ctrl+Shift+Z / Ctrl+Y) undo and redo the last action of the app, from any
widget of the window: Qt lets the focus widget claim a shortcut first (a
``ShortcutOverride`` it accepts), and every line edit claims Ctrl+Z, also the one inside a
spin box, even with nothing to undo, so from the Stale tab's importance box Ctrl+Z did
nothing. Here the claim is refused unless the widget is a text field with typing of its
own to undo (or redo): then its undo runs, as the person expects of a field they typed in.

Escape in the editor leaves the field for the list (its unsaved edits stay in the form).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)

UNDO, REDO = "undo", "redo"


def own_history(widget: QObject, which: str) -> bool:
    """Whether ``widget`` is a text field with typing of its own to undo (or redo)."""
    if isinstance(widget, QLineEdit):
        if widget.isReadOnly() or isinstance(widget.parent(), QAbstractSpinBox):
            return False  # a spin box's number is a value, not text being written
        return widget.isUndoAvailable() if which == UNDO else widget.isRedoAvailable()
    if isinstance(widget, QPlainTextEdit | QTextEdit):
        if widget.isReadOnly():
            return False
        document = widget.document()
        return document.isUndoAvailable() if which == UNDO else document.isRedoAvailable()
    return False


class WindowKeys(QObject):
    """Installed on the application for one window; ``remove`` takes it off."""

    def __init__(
        self,
        window: QWidget,
        undo: QAction,
        redo: QAction,
        editor: QWidget,
        to_list: Callable[[], None],
    ) -> None:
        super().__init__(window)
        self._window = window
        self._actions = {UNDO: undo, REDO: redo}
        self._editor = editor
        self._to_list = to_list
        app = QApplication.instance()
        if app is not None:
            app.installEventFilter(self)

    def remove(self) -> None:
        app = QApplication.instance()
        if app is not None:
            app.removeEventFilter(self)

    def _which(self, event: QKeyEvent) -> str | None:
        pressed = QKeySequence(event.keyCombination())
        for which, action in self._actions.items():
            if any(
                s.matches(pressed) == QKeySequence.SequenceMatch.ExactMatch
                for s in action.shortcuts()
            ):
                return which
        return None

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind not in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress):
            return False  # the cheap answer for every other event of the application
        if not isinstance(watched, QWidget) or watched is not QApplication.focusWidget():
            return False
        if not self._window.isAncestorOf(watched):
            return False  # another window, or a dialog of this one
        assert isinstance(event, QKeyEvent)
        if kind == QEvent.Type.ShortcutOverride:
            which = self._which(event)
            # refused (not accepted): the window's Undo or Redo shortcut runs instead
            return which is not None and not own_history(watched, which)
        if (
            event.key() == Qt.Key.Key_Escape
            and event.modifiers() == Qt.KeyboardModifier.NoModifier
            and self._editor.isAncestorOf(watched)
        ):
            self._to_list()  # the edits stay in the form, unsaved
            return True
        return False

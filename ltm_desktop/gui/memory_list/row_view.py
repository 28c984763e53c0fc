"""A table view for lists of rows: Home and End go to the first and last row, and the
first arrow press selects the row the keyboard is on.

QTableView's Home/End move along the current row's cells, which in a list selected
by whole rows does nothing visible; a person pressing End in a list expects its end.
Ctrl+Home/Ctrl+End keep Qt's meaning (move there without changing the selection).

When a view takes the focus with no current row, Qt makes the first row current without
selecting it, so the first Down went to row 2. Here an arrow (or Page) key pressed while
nothing is selected selects the current row, or the first, as file managers do.
"""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QAbstractItemView, QTableView

Move = QAbstractItemView.CursorAction
Flag = QItemSelectionModel.SelectionFlag
FIRST_KEYS = frozenset({Qt.Key.Key_Down, Qt.Key.Key_Up, Qt.Key.Key_PageDown, Qt.Key.Key_PageUp})


def select_first_press(view: QTableView, event: QKeyEvent) -> bool:
    """Select the current row (or the first) for an arrow key pressed with nothing
    selected; True if it did (the key is then used up)."""
    selection = view.selectionModel()
    if (
        event.key() not in FIRST_KEYS
        or event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        or selection is None
        or selection.hasSelection()
        or view.model().rowCount() == 0
    ):
        return False
    index = view.currentIndex()
    if not index.isValid():
        index = view.model().index(0, 0)
    selection.setCurrentIndex(index, Flag.ClearAndSelect | Flag.Rows)
    view.scrollTo(index)
    return True


class RowTableView(QTableView):
    """QTableView whose unmodified Home/End jump to the first/last row, and whose first
    arrow press selects the row the keyboard is on."""

    def moveCursor(
        self, cursorAction: QAbstractItemView.CursorAction, modifiers: Qt.KeyboardModifier
    ) -> QModelIndex:
        if cursorAction in (Move.MoveHome, Move.MoveEnd) and not (
            modifiers & Qt.KeyboardModifier.ControlModifier
        ):
            modifiers = modifiers | Qt.KeyboardModifier.ControlModifier
        return super().moveCursor(cursorAction, modifiers)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if select_first_press(self, event):
            event.accept()
            return
        super().keyPressEvent(event)

"""A table view for lists of rows: Home and End go to the first and last row.

QTableView's Home/End move along the current row's cells, which in a list selected
by whole rows does nothing visible; a person pressing End in a list expects its end.
Ctrl+Home/Ctrl+End keep Qt's meaning (move there without changing the selection).
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import QAbstractItemView, QTableView

Move = QAbstractItemView.CursorAction


class RowTableView(QTableView):
    """QTableView whose unmodified Home/End jump to the first/last row."""

    def moveCursor(
        self, cursorAction: QAbstractItemView.CursorAction, modifiers: Qt.KeyboardModifier
    ) -> QModelIndex:
        if cursorAction in (Move.MoveHome, Move.MoveEnd) and not (
            modifiers & Qt.KeyboardModifier.ControlModifier
        ):
            modifiers = modifiers | Qt.KeyboardModifier.ControlModifier
        return super().moveCursor(cursorAction, modifiers)

"""A flat table model over a list of rows, updated by keyed diffs so selections survive."""

from __future__ import annotations

from collections.abc import Sequence
from difflib import SequenceMatcher
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)

MemoryIdRole = Qt.ItemDataRole.UserRole + 1
HtmlRole = Qt.ItemDataRole.UserRole + 2
RowRole = Qt.ItemDataRole.UserRole + 3

AnyIndex = QModelIndex | QPersistentModelIndex
Opcodes = list[tuple[str, int, int, int, int]]
RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
CENTER = Qt.AlignmentFlag.AlignCenter


def diff_keys(old: Sequence[Any], new: Sequence[Any]) -> Opcodes:
    """How to turn the ``old`` key sequence into ``new`` (difflib opcodes)."""
    return list(SequenceMatcher(None, old, new, autojunk=False).get_opcodes())


# Roles no model here answers (views ask for them on every paint). Flags are Qt's own
# (selectable, enabled, no children): an override in Python costs a call per cell.
NEVER_ANSWERED = frozenset(
    int(r)
    for r in (
        Qt.ItemDataRole.DecorationRole,
        Qt.ItemDataRole.CheckStateRole,
        Qt.ItemDataRole.SizeHintRole,
        Qt.ItemDataRole.StatusTipRole,
        Qt.ItemDataRole.WhatsThisRole,
        Qt.ItemDataRole.BackgroundRole,
    )
)


class RowTableModel(QAbstractTableModel):
    """Rows in a list, one column per entry of ``COLUMNS``; subclasses say how a cell looks.

    Signals:
        refresh_started(): rows are about to be patched in place (views note their selection).
        refresh_finished(): the patch is applied (views restore what the patch lost).
    """

    COLUMNS: tuple[str, ...] = ()
    refresh_started = Signal()
    refresh_finished = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._rows: list[Any] = []
        self._positions: dict[Any, int] | None = None

    # -- subclass hooks ---------------------------------------------------

    def key(self, row: Any) -> Any:
        """What identifies a row across reloads (a memory id by default)."""
        return row.id

    def memory_id(self, row: Any) -> str | None:
        return getattr(row, "id", None)

    def cell(self, row: Any, column: int, role: int) -> Any:
        return None

    # -- Qt API -----------------------------------------------------------

    def rowCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008 - Qt signature
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008 - Qt signature
        return 0 if parent.isValid() else len(self.COLUMNS)

    HEADER_TIPS: dict[int, str] = {}  # what a short column title means

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if (
            orientation == Qt.Orientation.Horizontal
            and role == Qt.ItemDataRole.DisplayRole
            and 0 <= section < len(self.COLUMNS)
        ):
            return self.COLUMNS[section]
        if (
            orientation == Qt.Orientation.Horizontal
            and role == Qt.ItemDataRole.ToolTipRole
            and section in self.HEADER_TIPS
        ):
            return self.HEADER_TIPS[section]
        return None

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role in NEVER_ANSWERED or not index.isValid():  # a paint asks each cell for all
            return None
        if not 0 <= index.row() < len(self._rows):
            return None
        return self.row_data(self._rows[index.row()], index.column(), role)

    def row_data(self, row: Any, column: int, role: int) -> Any:
        """What ``data`` answers for a row that is there."""
        if role == MemoryIdRole:
            return self.memory_id(row)
        if role == RowRole:
            return row
        return self.cell(row, column, role)

    # -- rows -------------------------------------------------------------

    def rows(self) -> list[Any]:
        return list(self._rows)

    def row_at(self, row: int) -> Any:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def row_of(self, key: Any) -> int:
        """The position of the row with ``key``, or -1."""
        if self._positions is None:
            self._positions = {self.key(r): i for i, r in enumerate(self._rows)}
        return self._positions.get(key, -1)

    def reset_rows(self, rows: Sequence[Any]) -> None:
        self.beginResetModel()
        self._rows = list(rows)
        self._positions = None
        self.endResetModel()

    def set_rows(self, rows: Sequence[Any], opcodes: Opcodes | None = None) -> None:
        """Patch the rows into ``rows`` with inserts, removals and dataChanged, not a reset."""
        rows = list(rows)
        if opcodes is None:
            opcodes = diff_keys([self.key(r) for r in self._rows], [self.key(r) for r in rows])
        self.refresh_started.emit()
        for tag, i1, i2, j1, j2 in reversed(opcodes):
            if tag == "equal":
                self._patch_equal(i1, rows[j1:j2])
                continue
            if i2 > i1:
                self.beginRemoveRows(QModelIndex(), i1, i2 - 1)
                del self._rows[i1:i2]
                self._positions = None
                self.endRemoveRows()
            if j2 > j1:
                self.beginInsertRows(QModelIndex(), i1, i1 + (j2 - j1) - 1)
                self._rows[i1:i1] = rows[j1:j2]
                self._positions = None
                self.endInsertRows()
        self._positions = None
        self.refresh_finished.emit()

    def _patch_equal(self, start: int, fresh: Sequence[Any]) -> None:
        first: int | None = None
        for offset, row in enumerate([*fresh, None]):
            position = start + offset
            differs = row is not None and self._rows[position] != row
            if differs:
                self._rows[position] = row
                if first is None:
                    first = position
            elif first is not None:
                last_column = max(0, len(self.COLUMNS) - 1)
                self.dataChanged.emit(self.index(first, 0), self.index(position - 1, last_column))
                first = None

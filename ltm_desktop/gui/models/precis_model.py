"""The MEMORY.md candidates of a scope: which made it into the file and which the budget cut."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QFont

from ltm_desktop.gui import theme
from ltm_desktop.gui.models.base import CENTER, RowTableModel

COL_RANK, COL_TITLE, COL_IMPORTANCE, COL_SCOPE, COL_STATUS = range(5)


@dataclass(frozen=True, slots=True)
class CandidateRow:
    id: str
    rank: int
    title: str
    importance: int
    is_global: bool
    included: bool
    truncated: bool = False  # in the file, but cut short where the budget ran out


class PrecisCandidatesModel(RowTableModel):
    COLUMNS = ("#", "Memory", "Imp.", "Scope", "In file")  # short: the titles get the room

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)

    def cell(self, row: CandidateRow, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            return [
                str(row.rank),
                row.title,
                str(row.importance),
                "global" if row.is_global else "project",
                _status(row),
            ][column]
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == COL_TITLE:
                return row.title
            if row.truncated:
                return "Only the start of this memory fits in MEMORY.md: the budget ran out in it"
            if row.included:
                return "This memory is in MEMORY.md (click to open it)"
            return "Ranked among the top memories, but the byte budget ran out before it"
        if role == Qt.ItemDataRole.ForegroundRole and row.truncated and column == COL_STATUS:
            return theme.warning_color()
        if role == Qt.ItemDataRole.ForegroundRole and not row.included:
            return theme.muted_color()
        if role == Qt.ItemDataRole.FontRole and not row.included and column == COL_STATUS:
            font = QFont()
            font.setItalic(True)
            return font
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (COL_RANK, COL_IMPORTANCE):
            return CENTER
        return None


def _status(row: CandidateRow) -> str:
    if row.truncated:
        return "cut short"
    return "included" if row.included else "cut by budget"

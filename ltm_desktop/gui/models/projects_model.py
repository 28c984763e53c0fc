"""The projects sidebar: global first, then every project, with its active-memory count."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QFont

from ltm_desktop.core.records import GLOBAL_PROJECT_ID, Project
from ltm_desktop.gui.models.base import RIGHT, RowTableModel

COL_NAME, COL_COUNT = range(2)
GLOBAL_LABEL = "Global"


@dataclass(frozen=True, slots=True)
class ProjectRow:
    project_id: str
    name: str
    path: str | None
    active: int

    @property
    def id(self) -> str:
        return self.project_id

    @property
    def is_global(self) -> bool:
        return self.project_id == GLOBAL_PROJECT_ID


def project_rows(found: list[tuple[Project, int]]) -> list[ProjectRow]:
    rows = [ProjectRow(p.project_id, p.name, p.path, n) for p, n in found]
    if not any(r.is_global for r in rows):  # global is always there, even before its first memory
        rows.insert(0, ProjectRow(GLOBAL_PROJECT_ID, GLOBAL_LABEL, None, 0))
    return rows


class ProjectsModel(RowTableModel):
    """Scopes filtered by a text typed over them (a short list: filtering here is free)."""

    COLUMNS = ("Project", "Memories")

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._all: list[ProjectRow] = []
        self._filter = ""

    def memory_id(self, row: Any) -> str | None:
        return None

    def set_projects(self, rows: list[ProjectRow]) -> None:
        self._all = rows
        self._apply()

    def set_filter(self, text: str) -> None:
        self._filter = text.strip().lower()
        self._apply()

    def project(self, project_id: str) -> ProjectRow | None:
        return next((r for r in self._all if r.project_id == project_id), None)

    def all_projects(self) -> list[ProjectRow]:
        return list(self._all)

    def _apply(self) -> None:
        wanted = self._filter
        self.set_rows(
            [
                r
                for r in self._all
                if not wanted
                or r.is_global
                or wanted in r.name.lower()
                or wanted in (r.path or "").lower()
            ]
        )

    def cell(self, row: ProjectRow, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            if column == COL_COUNT:
                return f"{row.active:,}"
            return GLOBAL_LABEL if row.is_global else row.name
        if role == Qt.ItemDataRole.ToolTipRole:
            if row.is_global:
                return "Memories that apply to every project (e.g. your preferences)"
            return row.path or row.project_id
        if role == Qt.ItemDataRole.TextAlignmentRole and column == COL_COUNT:
            return RIGHT
        if role == Qt.ItemDataRole.FontRole and row.is_global:
            font = QFont()
            font.setBold(True)
            return font
        return None

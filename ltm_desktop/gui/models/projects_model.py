"""The projects sidebar: global first, then every project, with its active-memory count
and its stale candidates; projects of the same name show the part of the path that
tells them apart. With a global scope per person (docs/teams.md) the shared one is
"Team", the person's own "Global (you)" (``core.projects.ambient``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QFont

from ltm_desktop.core.projects.ambient import PERSON_PREFIX, AmbientScopes
from ltm_desktop.core.records import GLOBAL_PROJECT_ID, Project
from ltm_desktop.gui.models.base import RIGHT, RowTableModel

COL_NAME, COL_COUNT, COL_STALE, COL_NEW = range(4)
GLOBAL_LABEL = "Global"


@dataclass(frozen=True, slots=True)
class ProjectRow:
    project_id: str
    name: str
    path: str | None
    active: int
    stale: int = 0
    label: str = ""  # the name shown (with the part of the path that tells it apart)
    new: int = 0  # memories agents added since the person last looked

    @property
    def id(self) -> str:
        return self.project_id

    @property
    def is_global(self) -> bool:
        """The team's (shared) global scope or a person's: no directory, never merged."""
        return self.project_id == GLOBAL_PROJECT_ID or self.project_id.startswith(PERSON_PREFIX)

    @property
    def shown(self) -> str:
        """The name the person sees."""
        return self.label or self.name


def distinct_labels(projects: list[Project]) -> dict[str, str]:
    """Each project's name, with the folders above it that tell same-named projects
    apart: ``app (work/app)`` and ``app (personal/app)``."""
    by_name: dict[str, list[Project]] = {}
    for p in projects:
        by_name.setdefault(str(p.name), []).append(p)
    labels = {p.project_id: str(p.name) for p in projects}
    for name, same in by_name.items():
        if len(same) < 2:
            continue
        parts = {p.project_id: PurePosixPath(p.path or p.project_id).parts for p in same}
        tails = {pid: "/".join(v) for pid, v in parts.items()}
        for depth in range(2, max(len(v) for v in parts.values()) + 1):
            tails = {pid: "/".join(v[-depth:]) for pid, v in parts.items()}
            if len(set(tails.values())) == len(tails):
                break
        for pid, tail in tails.items():
            labels[pid] = f"{name} ({tail})"
    return labels


def project_rows(
    found: list[tuple[Project, int]],
    stale: dict[str, int] | None = None,
    new: dict[str, int] | None = None,
    ambient: AmbientScopes | None = None,
) -> list[ProjectRow]:
    """``ambient``: whose global scopes these are (default: one shared ``global``)."""
    ambient = ambient or AmbientScopes.shared()
    labels = distinct_labels([p for p, _ in found])
    labels[GLOBAL_PROJECT_ID] = GLOBAL_LABEL
    labels = {pid: ambient.label(pid, label) for pid, label in labels.items()}
    stale, new = stale or {}, new or {}
    rows = [
        ProjectRow(
            p.project_id,
            p.name,
            p.path,
            n,
            stale.get(p.project_id, 0),
            labels[p.project_id],
            new.get(p.project_id, 0),
        )
        for p, n in found
    ]
    # the global scopes are always there, even before their first memory (the person's
    # row is made by its first write)
    known = {r.project_id for r in rows}
    if GLOBAL_PROJECT_ID not in known:
        label = labels[GLOBAL_PROJECT_ID]
        rows.insert(0, ProjectRow(GLOBAL_PROJECT_ID, GLOBAL_LABEL, None, 0, label=label))
    if ambient.personal_mode and ambient.personal not in known:
        mine = ambient.personal
        rows.insert(1, ProjectRow(mine, ambient.label(mine, mine), None, 0, label=""))
    return rows


class ProjectsModel(RowTableModel):
    """Scopes filtered by a text typed over them (a short list: filtering here is free)."""

    COLUMNS = ("Project", "#", "Stale", "New")  # short: the sidebar is narrow, names come first
    HEADER_TIPS = {1: "Active memories", 2: "Stale candidates to review", 3: "New from agents"}

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

    def scope_choices(self) -> list[tuple[str, str]]:
        """(project id, name) of every scope, global first: what a scope picker offers."""
        return [(r.project_id, r.shown) for r in self._all]

    def _apply(self) -> None:
        wanted = self._filter
        self.set_rows(
            [
                r
                for r in self._all
                if not wanted
                or r.is_global
                or wanted in (r.label or r.name).lower()
                or wanted in (r.path or "").lower()
            ]
        )

    def cell(self, row: ProjectRow, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            if column == COL_COUNT:
                return f"{row.active:,}"
            if column == COL_STALE:
                return f"{row.stale:,}" if row.stale else ""
            if column == COL_NEW:
                return f"{row.new:,}" if row.new else ""
            return row.shown
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == COL_COUNT:
                return f"{row.active:,} active memories (not removed, not expired)"
            if column == COL_STALE:
                return f"{row.stale:,} stale candidates to review (the Stale tab)"
            if column == COL_NEW:
                return f"{row.new:,} added by agents since you last looked (the New filter)"
            if row.is_global:
                return "Memories that apply to every project (e.g. your preferences)"
            return row.path or row.project_id
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (COL_COUNT, COL_STALE, COL_NEW):
            return RIGHT
        if role == Qt.ItemDataRole.FontRole and row.is_global:
            font = QFont()
            font.setBold(True)
            return font
        return None

"""The projects sidebar: pick the scope every other view shows."""

from __future__ import annotations

import time
from dataclasses import replace

from PySide6.QtCore import QItemSelectionModel, Qt, QTimer, Signal
from PySide6.QtWidgets import QLineEdit, QTableView, QVBoxLayout, QWidget

from ltm_desktop.core.offline_view import cached_projects, online_or_cached
from ltm_desktop.core.records import GLOBAL_PROJECT_ID, Project
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.bridge import ChangeSet
from ltm_desktop.gui.context import AppContext
from ltm_desktop.gui.dialogs.detach_project import ProjectDetacher
from ltm_desktop.gui.dialogs.merge_project import ProjectMerger
from ltm_desktop.gui.memory_list.new_since import last_look
from ltm_desktop.gui.memory_list.view_state import ColumnFitter, ViewKeeper, configure_table
from ltm_desktop.gui.models.projects_model import (
    COL_COUNT,
    COL_NAME,
    COL_NEW,
    COL_STALE,
    ProjectRow,
    ProjectsModel,
    project_rows,
)

MIN_RELOAD_MS = 500  # agents writing in a burst: recount at most twice a second
COUNTS_EVERY_MS = 2_000  # the stale and new counts, which read every memory: less often


class ProjectsPanel(QWidget):
    """Lists the scopes with their active-memory counts; new projects appear as agents write.

    Signals:
        loaded(): the list (re)loaded.
    """

    loaded = Signal()

    def __init__(self, ctx: AppContext, initial_scope: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self._wanted: str | None = initial_scope
        self._loading = False
        self._again = False
        self.model = ProjectsModel(self)
        self.filter = QLineEdit(self)
        self.filter.setPlaceholderText("Filter projects")
        self.filter.setClearButtonEnabled(True)
        self.view = QTableView(self)
        self.view.setModel(self.model)
        configure_table(self.view, multi=False, stretch=COL_NAME)
        self.view.setAlternatingRowColors(False)
        self.view.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # a name's end tells apart
        self.fitter = ColumnFitter(self.view, (COL_COUNT, COL_STALE, COL_NEW))
        self.keeper = ViewKeeper(self.view, self.model)
        self.merger = ProjectMerger(ctx, self)  # "Merge into…" on the list's menu
        self.merger.merged.connect(self.select_later)
        self.detacher = ProjectDetacher(ctx, self)  # "Make this folder its own project…"
        self.detacher.detached.connect(self.select_later)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.filter)
        layout.addWidget(self.view, 1)
        self._throttle = QTimer(self, singleShot=True, interval=MIN_RELOAD_MS)
        self._counted_at = -COUNTS_EVERY_MS / 1000  # the first counts are read at once
        self._counts_later = QTimer(self, singleShot=True)
        self._counts_later.timeout.connect(self._load_counts)
        self._throttle.timeout.connect(self.reload)
        self.filter.textChanged.connect(self.model.set_filter)
        self.view.selectionModel().currentRowChanged.connect(self.on_current_row_changed)
        ctx.bridge.changed.connect(self.on_changes)

    def reload(self) -> None:
        if self._loading:
            self._again = True
            return
        self._loading = True
        service = self.ctx.service
        self.ctx.runner.run(
            lambda: project_rows(listed_projects(service), ambient=service.ambient),
            self.on_projects,
            self.on_failed,
            key=f"projects-{id(self)}",
        )

    def _load_counts(self) -> None:
        """Stale and new counts come second: they read every memory (tens of ms at 100k)
        and the list of the chosen scope must not wait for them. While agents write in a
        burst they are read at most every COUNTS_EVERY_MS (the last write always counts)."""
        wait = COUNTS_EVERY_MS - (time.monotonic() - self._counted_at) * 1000
        if wait > 0:
            if not self._counts_later.isActive():
                self._counts_later.start(int(wait))
            return
        self._counted_at = time.monotonic()
        service, since = self.ctx.service, last_look(self.ctx)
        self.ctx.runner.run(
            lambda: online_or_cached(  # offline: none (they read every memory)
                service.offline,
                lambda: (service.stale.counts(), service.reviews.new_counts(since)),
                lambda: ({}, {}),
            ),
            self.on_counts,
            self.on_failed,
            key=f"project-counts-{id(self)}",
        )

    def on_counts(self, counts: tuple[dict[str, int], dict[str, int]]) -> None:
        stale, new = counts
        self.model.set_projects(
            [
                replace(r, stale=stale.get(r.project_id, 0), new=new.get(r.project_id, 0))
                for r in self.model.all_projects()
            ]
        )

    def on_changes(self, changes: ChangeSet) -> None:
        if not self._throttle.isActive():
            self._throttle.start()

    def on_failed(self, exc: BaseException) -> None:
        self._loading = False
        self.ctx.errors.report(exc, "list the projects")

    def on_projects(self, rows: list[ProjectRow]) -> None:
        self._loading = False
        known = {r.project_id: r for r in self.model.all_projects()}  # counts until new ones
        self.model.set_projects(
            [
                replace(r, stale=old.stale, new=old.new) if (old := known.get(r.project_id)) else r
                for r in rows
            ]
        )
        if self._wanted is not None:
            wanted, self._wanted = self._wanted, None
            if self.model.project(wanted) is None:
                wanted = GLOBAL_PROJECT_ID
            self.select(wanted)
        current = self.model.project(self.ctx.scope.project_id)
        if current is not None:
            self.ctx.scope.name = current.shown
        self.loaded.emit()
        self._load_counts()
        if self._again:
            self._again = False
            self.reload()

    def select(self, project_id: str) -> None:
        row = self.model.row_of(project_id)
        if row < 0:
            self.filter.clear()
            row = self.model.row_of(project_id)
        if row >= 0:
            flags = QItemSelectionModel.SelectionFlag
            self.view.selectionModel().setCurrentIndex(
                self.model.index(row, COL_NAME), flags.ClearAndSelect | flags.Rows
            )
        else:
            self.ctx.scope.set_scope(project_id, project_id)

    def on_current_row_changed(self, *_args: object) -> None:
        if self.keeper.busy:
            return
        row = self.model.row_at(self.view.currentIndex().row())
        if row is not None:
            name = row.shown
            self.ctx.scope.set_scope(row.project_id, name)

    def select_later(self, project_id: str) -> None:
        """Select ``project_id`` once the list has (re)loaded (a merge's target)."""
        self._wanted = project_id
        self.reload()

    def has_any_memories(self) -> bool:
        """False on a first launch: nothing stored in any scope yet."""
        return any(r.active or not r.is_global for r in self.model.all_projects())


def listed_projects(service: MemoryService) -> list[tuple[Project, int]]:
    """Every scope with its active memories; while the shared database cannot be reached,
    the scopes this machine mirrors, counted as seen here."""
    offline = service.offline
    return online_or_cached(
        offline, service.projects, lambda: cached_projects(offline, service.now())
    )

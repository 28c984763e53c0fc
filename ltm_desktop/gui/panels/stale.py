"""Stale candidates: old, unimportant, never used. Remove them in bulk, or keep them."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ltm_desktop.core.records import GLOBAL_PROJECT_ID
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.actions import MemoryActions
from ltm_desktop.gui.bridge import ChangeSet
from ltm_desktop.gui.context import AppContext
from ltm_desktop.gui.formatting import count_label
from ltm_desktop.gui.memory_list.view_state import ColumnFitter, ViewKeeper, configure_table
from ltm_desktop.gui.models.base import diff_keys
from ltm_desktop.gui.models.projects_model import GLOBAL_LABEL, distinct_labels
from ltm_desktop.gui.models.stale_model import (
    COL_AGE,
    COL_IMPORTANCE,
    COL_PROJECT,
    COL_REASON,
    COL_TITLE,
    COL_USES,
    StaleModel,
    StaleRow,
    stale_row,
)
from ltm_desktop.gui.panels.base import ScopedPanel

MAX_PATCHED_RANGES = 50  # more changed ranges than this: the list is reset in one go


def load_stale(service: MemoryService, project_id: str, everywhere: bool = False) -> list[StaleRow]:
    """The scope's stale candidates, or every project's (reading only scopes that have some)."""
    now = service.now()
    limit = service.settings.stale_max_importance
    if not everywhere:
        return [
            stale_row(c.memory, now, limit, aged=c.aged, missing_files=c.missing_files)
            for c in service.stale.candidates(project_id)
        ]
    names = distinct_labels([p for p, _ in service.projects()])
    names[GLOBAL_PROJECT_ID] = GLOBAL_LABEL
    names = {pid: service.ambient.label(pid, name) for pid, name in names.items()}
    scopes = sorted(service.stale.counts(), key=lambda pid: str(names.get(pid, pid)).lower())
    return [
        stale_row(
            c.memory,
            now,
            limit,
            str(names.get(pid, pid)),
            aged=c.aged,
            missing_files=c.missing_files,
        )
        for pid in scopes
        for c in service.stale.candidates(pid)
    ]


class StalePanel(ScopedPanel):
    """Lists the scope's (or every project's) stale candidates with the reason for each.

    Signals:
        current_changed(str): the stale memory under the cursor ("" for none), to edit.
    """

    current_changed = Signal(str)

    def __init__(
        self, ctx: AppContext, actions: MemoryActions, parent: QWidget | None = None
    ) -> None:
        super().__init__(ctx, parent)
        self.memory_actions = actions
        settings = ctx.service.settings
        self.summary = QLabel(self)
        self.summary.setWordWrap(True)
        self.explain = QLabel(
            f"A memory is stale when its importance is at most {settings.stale_max_importance}, "
            f"no agent ever found it, and nobody touched it for {settings.stale_age_days} days. "
            "Remove the ones you do not need (they go to the Trash), or keep the others: "
            "keeping marks them reviewed, raising their importance takes them off for good. "
            "A memory naming a file that no longer exists is listed too (files are checked "
            "at most once a minute); keeping it says the memory still holds without it.",
            self,
        )
        self.explain.setWordWrap(True)
        self.explain.setEnabled(False)
        self.model = StaleModel(self)
        self.view = QTableView(self)
        self.view.setModel(self.model)
        configure_table(self.view, stretch=COL_REASON)
        self.view.setColumnWidth(COL_TITLE, 220)
        self.fitter = ColumnFitter(self.view, (COL_IMPORTANCE, COL_USES, COL_AGE))
        self.keeper = ViewKeeper(self.view, self.model)
        self.everywhere = QCheckBox("All projects", self)
        self.everywhere.setToolTip("List the stale candidates of every project at once")
        self.view.setColumnHidden(COL_PROJECT, True)
        self.select_all = QPushButton("Select all", self)
        self.remove_button = QPushButton("Remove selected", self)
        self.keep_button = QPushButton("Keep selected", self)
        self.importance = QSpinBox(self)
        self.importance.setRange(settings.stale_max_importance + 1, 10)
        self.importance.setValue(min(10, settings.stale_max_importance + 2))
        self.raise_button = QPushButton("Set importance", self)
        buttons = QHBoxLayout()  # two short rows: the tab fits a narrow window
        buttons.addWidget(self.everywhere)
        buttons.addWidget(self.select_all)
        buttons.addStretch(1)
        buttons.addWidget(self.remove_button)
        buttons.addWidget(self.keep_button)
        raising = QHBoxLayout()
        raising.addStretch(1)
        raising.addWidget(QLabel("or raise importance to", self))
        raising.addWidget(self.importance)
        raising.addWidget(self.raise_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.explain)
        layout.addWidget(self.view, 1)
        layout.addLayout(buttons)
        layout.addLayout(raising)
        self.select_all.clicked.connect(self.view.selectAll)
        self.remove_button.clicked.connect(self.remove_selected)
        self.keep_button.clicked.connect(self.keep_selected)
        self.raise_button.clicked.connect(self.raise_selected)
        self.view.selectionModel().selectionChanged.connect(self.on_selection_changed)
        self.view.selectionModel().currentRowChanged.connect(self.on_current_row)
        self.everywhere.toggled.connect(self.on_everywhere)
        actions.writing.connect(self.on_writing)
        self._writing = False  # a bulk write of the window is on the way: buttons wait
        self._reload_after_writing = False
        self.on_selection_changed()

    def on_everywhere(self, on: bool) -> None:
        self.view.setColumnHidden(COL_PROJECT, not on)
        self.reload_now()

    def affected_by(self, changes: ChangeSet) -> bool:
        return True if self.everywhere.isChecked() else super().affected_by(changes)

    def on_current_row(self, *_args: object) -> None:
        if not self.keeper.busy:
            row = self.model.row_at(self.view.currentIndex().row())
            self.current_changed.emit(row.id if row is not None else "")

    def reload(self, scope_changed: bool) -> None:
        if self._writing and not scope_changed:
            self._reload_after_writing = True  # a list read per batch would slow it down
            return
        service, project_id = self.ctx.service, self.project_id
        everywhere = self.everywhere.isChecked()
        self.ctx.runner.run(
            lambda: load_stale(service, project_id, everywhere),
            lambda rows: self._on_loaded(project_id, rows),
            lambda exc: self.ctx.errors.report(exc, "find stale memories"),
            key=f"stale-{id(self)}",
        )

    def _on_loaded(self, project_id: str, rows: list[StaleRow]) -> None:
        if project_id != self.project_id:
            return
        self._patch_rows(rows)
        where = "in every project" if self.everywhere.isChecked() else "in this scope"
        if rows:
            self.summary.setText(f"<b>{count_label(len(rows), 'stale candidate')}</b> {where}.")
        else:
            self.summary.setText("<b>No stale memories here.</b> Nothing needs review.")
        self.on_selection_changed()

    def _patch_rows(self, rows: list[StaleRow]) -> None:
        """Patch the list in place when few ranges changed; after a bulk removal that left
        thousands of gaps, one reset instead (a repaint per range took seconds)."""
        model = self.model
        opcodes = diff_keys([model.key(r) for r in model.rows()], [model.key(r) for r in rows])
        if sum(1 for op in opcodes if op[0] != "equal") <= MAX_PATCHED_RANGES:
            model.set_rows(rows, opcodes)
            return
        model.refresh_started.emit()  # the view keeper keeps the current row and scroll
        model.reset_rows(rows)
        model.refresh_finished.emit()

    def selected_rows(self) -> list[int]:
        """The selected rows in order, read off the selection's ranges (Select all on
        thousands is one range: no index per row is made)."""
        selection = self.view.selectionModel().selection()
        rows: set[int] = set()
        for i in range(selection.size()):
            span = selection.at(i)
            rows.update(range(span.top(), span.bottom() + 1))
        return sorted(r for r in rows if r < self.model.rowCount())

    def selected_ids(self) -> list[str]:
        return [self.model.row_at(r).id for r in self.selected_rows()]

    def selected_versions(self) -> dict[str, float]:
        """The selected memories with the version of each the list shows (what a write
        names, so as not to overwrite a newer one)."""
        rows = (self.model.row_at(r).memory for r in self.selected_rows())
        return {m.id: float(m.updated_at) for m in rows}

    def on_writing(self, writing: bool) -> None:
        self._writing = writing
        self.on_selection_changed()
        if not writing and self._reload_after_writing:
            self._reload_after_writing = False
            self.reload_now()

    def on_selection_changed(self, *_args: object) -> None:
        any_selected = self.view.selectionModel().hasSelection() and not self._writing
        for button in (self.remove_button, self.keep_button, self.raise_button):
            button.setEnabled(any_selected)
        self.select_all.setEnabled(self.model.rowCount() > 0 and not self._writing)

    def _act(self, act: Callable[[dict[str, float]], None]) -> None:
        if self._writing:
            self.memory_actions.message.emit("Still working on the last change; try again then.")
            return
        versions = self.selected_versions()
        if versions:
            act(versions)

    def remove_selected(self) -> None:
        self._act(self.memory_actions.delete)

    def keep_selected(self) -> None:
        self._act(self.memory_actions.keep)

    def raise_selected(self) -> None:
        value = self.importance.value()
        self._act(lambda versions: self.memory_actions.set_importance(versions, value))

"""The Trash: what was removed, superseded or expired in this scope, and a way back."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ltm_desktop.gui.actions import MemoryActions
from ltm_desktop.gui.context import AppContext
from ltm_desktop.gui.erase_controls import EraseControls
from ltm_desktop.gui.formatting import count_label
from ltm_desktop.gui.models.base import MemoryIdRole
from ltm_desktop.gui.models.trash_model import COL_TITLE, COL_WHEN, COL_WHY, TrashModel
from ltm_desktop.gui.panel_base import ScopedPanel
from ltm_desktop.gui.view_state import ViewKeeper, configure_table, selected_versions


class TrashPanel(ScopedPanel):
    """Removed memories stay restorable until erased for good (``EraseControls``).

    Signals:
        current_changed(str): the memory under the cursor ("" for none).
    """

    current_changed = Signal(str)

    def __init__(
        self, ctx: AppContext, actions: MemoryActions, parent: QWidget | None = None
    ) -> None:
        super().__init__(ctx, parent)
        self.memory_actions = actions
        self.model = TrashModel(ctx.service, ctx.runner, self)
        self.view = QTableView(self)
        self.view.setModel(self.model)
        configure_table(self.view, stretch=COL_TITLE)
        for column, width in ((1, 80), (COL_WHY, 160), (COL_WHEN, 90), (COL_WHEN + 1, 100)):
            self.view.setColumnWidth(column, width)
        self.view.horizontalHeader().setSortIndicator(COL_WHEN, Qt.SortOrder.DescendingOrder)
        self.view.setSortingEnabled(True)
        self.keeper = ViewKeeper(self.view, self.model)
        self.summary = QLabel(self)
        self.restore_button = QPushButton("Restore selected", self)
        self.restore_button.setEnabled(False)
        hint = QLabel(
            "Restore brings a memory back as it was; only Erase permanently deletes for good.",
            self,
        )
        self.erase = EraseControls(ctx, actions, self.selected_ids, lambda: self.project_id, self)
        hint.setEnabled(False)
        hint.setWordWrap(True)
        bottom = QHBoxLayout()
        bottom.addWidget(self.summary)
        bottom.addStretch(1)
        bottom.addWidget(self.erase.empty_button)
        bottom.addWidget(self.erase.erase_button)
        bottom.addWidget(self.restore_button)
        layout = QVBoxLayout(self)
        layout.addWidget(hint)
        layout.addWidget(self.view, 1)
        layout.addLayout(bottom)
        self.restore_button.clicked.connect(self.restore_selected)
        self.view.selectionModel().selectionChanged.connect(self.on_selection_changed)
        self.view.selectionModel().currentRowChanged.connect(self.on_selection_changed)
        self.model.total_changed.connect(self.on_total)
        self.model.load_failed.connect(lambda exc: ctx.errors.report(exc, "load the Trash"))
        self._current = ""

    def reload(self, scope_changed: bool) -> None:
        if scope_changed:
            self.model.set_project(self.project_id)
        else:
            self.model.refresh()

    def on_total(self, total: int) -> None:
        self.summary.setText(count_label(total, "memory", "memories") + " in the Trash")
        self.erase.empty_button.setEnabled(total > 0)  # nothing to empty: nothing to ask

    def selected_ids(self) -> list[str]:
        rows = sorted(i.row() for i in self.view.selectionModel().selectedRows())
        return [self.model.index(r, 0).data(MemoryIdRole) for r in rows]

    def on_selection_changed(self, *_args: object) -> None:
        if self.keeper.busy:
            return
        ids = self.selected_ids()
        self.restore_button.setEnabled(bool(ids))
        self.erase.on_selection(ids)
        index: QModelIndex = self.view.currentIndex()
        current = (index.data(MemoryIdRole) or "") if index.isValid() and ids else ""
        if current != self._current:
            self._current = current
            self.current_changed.emit(current)

    def restore_selected(self) -> None:
        self.memory_actions.restore(selected_versions(self.view))

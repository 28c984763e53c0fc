"""The selected memory's timeline, each event's diff, and "revert to this version"."""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QTableView,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from ltm_desktop.core.errors import NotFound
from ltm_desktop.core.records import AuditEvent, Memory
from ltm_desktop.gui.actions import MemoryActions
from ltm_desktop.gui.bridge import ChangeSet
from ltm_desktop.gui.context import AppContext
from ltm_desktop.gui.diff_html import event_html, revertible_values
from ltm_desktop.gui.models.history_model import COL_FIELDS, HistoryModel
from ltm_desktop.gui.view_state import ViewKeeper, configure_table


class HistoryPanel(QWidget):
    """Follows the current memory; loads its history only while visible."""

    def __init__(
        self, ctx: AppContext, actions: MemoryActions, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.memory_actions = actions
        self.memory_id = ""
        self.version: float | None = None  # updated_at of the memory whose history is shown
        self._stale = False
        self.model = HistoryModel(self)
        self.title = QLabel("Select a memory to see its history.", self)
        self.title.setWordWrap(True)
        self.view = QTableView(self)
        self.view.setModel(self.model)
        configure_table(self.view, multi=False)
        self.view.horizontalHeader().setStretchLastSection(True)
        self.keeper = ViewKeeper(self.view, self.model)
        self.diff = QTextBrowser(self)
        self.diff.setOpenLinks(False)
        self.revert_button = QPushButton("Revert to the version before this change", self)
        self.revert_button.setEnabled(False)
        self.revert_button.clicked.connect(self.revert_selected)
        self.revert_action = QAction(self.revert_button.text(), self)  # the list's menu
        self.revert_action.setEnabled(False)
        self.revert_action.triggered.connect(self.revert_selected)
        splitter = QSplitter(Qt.Orientation.Vertical, self)
        splitter.addWidget(self.view)
        splitter.addWidget(self.diff)
        splitter.setSizes([200, 300])
        bottom = QHBoxLayout()
        bottom.addStretch(1)
        bottom.addWidget(self.revert_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(splitter, 1)
        layout.addLayout(bottom)
        self.view.selectionModel().currentRowChanged.connect(self.on_event_selected)
        ctx.bridge.changed.connect(self.on_changes)

    def show_memory(self, memory_id: str) -> None:
        if memory_id != self.memory_id:
            self.memory_id = memory_id
            self.version = None
            self.model.reset_rows([])
            self._stale = True
            self._load_if_visible()

    def on_changes(self, changes: ChangeSet) -> None:
        if self.memory_id and changes.touches_memory(self.memory_id):
            self._stale = True
            self._load_if_visible()

    def refresh(self) -> None:
        """Read the history again (e.g. after a refused revert, to show what happened)."""
        self._stale = bool(self.memory_id)
        self._load_if_visible()

    def showEvent(self, event: object) -> None:
        super().showEvent(event)  # type: ignore[arg-type]
        self._load_if_visible()

    def _load_if_visible(self) -> None:
        if not self._stale or not self.isVisible():
            return
        self._stale = False
        if not self.memory_id:
            self.title.setText("Select a memory to see its history.")
            self.diff.clear()
            return
        service, memory_id = self.ctx.service, self.memory_id

        def work() -> tuple[Memory, list[AuditEvent]]:
            return service.get(memory_id), service.history(memory_id)

        self.ctx.runner.run(
            work,
            lambda result: self._on_loaded(memory_id, *result),
            self._on_failed,
            key=f"history-{id(self)}",
        )

    def _on_loaded(self, memory_id: str, memory: Memory, events: list[AuditEvent]) -> None:
        if memory_id != self.memory_id:
            return
        self.version = memory.updated_at
        self.title.setText(f"History of “{memory.title}” — {len(events)} events, oldest first")
        self.model.set_rows(events)
        self.view.resizeColumnsToContents()
        if not self.view.currentIndex().isValid() and events:
            flags = QItemSelectionModel.SelectionFlag
            self.view.selectionModel().setCurrentIndex(
                self.model.index(len(events) - 1, 0), flags.ClearAndSelect | flags.Rows
            )
        self.view.horizontalHeader().resizeSection(COL_FIELDS, 120)
        self.on_event_selected()

    def _on_failed(self, exc: BaseException) -> None:
        if isinstance(exc, NotFound):
            self.title.setText("This memory no longer exists.")
        else:
            self.ctx.errors.report(exc, "load the history")

    def selected_event(self) -> AuditEvent | None:
        return self.model.row_at(self.view.currentIndex().row())

    def on_event_selected(self, *_args: object) -> None:
        event = self.selected_event()
        self.diff.setHtml(event_html(event) if event else "")
        self.revert_button.setEnabled(bool(event and revertible_values(event)))
        self.revert_action.setEnabled(self.revert_button.isEnabled())

    def revert_selected(self) -> None:
        event = self.selected_event()
        if event is None or self.version is None:
            return
        values = revertible_values(event)
        if values:
            fields = ", ".join(sorted(values))
            self.memory_actions.apply_version(
                event.memory_id,
                values,
                self.version,  # as of the memory this history was read with
                f"Revert {fields} to before the {event.action.value} change",
            )

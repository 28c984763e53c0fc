"""The selected memory's timeline, each event's diff, and "revert to this version".

Two buttons, each saying what it does: "Revert this change" puts back the fields the
selected event set, as they were before it (later changes to other fields stay);
"Revert to this version" makes every editable field as it was right after the selected
event (every later change undone, whoever made it). The list's menu offers both.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QItemSelectionModel, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QLabel,
    QPushButton,
    QSplitter,
    QTableView,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from ltm_desktop.core.errors import NotFound
from ltm_desktop.core.records import EDITABLE_FIELDS, AuditEvent, Memory
from ltm_desktop.gui.actions import MemoryActions
from ltm_desktop.gui.bridge import ChangeSet
from ltm_desktop.gui.context import AppContext
from ltm_desktop.gui.formatting import absolute_time
from ltm_desktop.gui.memory_list.view_state import ViewKeeper, configure_table
from ltm_desktop.gui.models.history_model import COL_FIELDS, HistoryModel
from ltm_desktop.gui.panels.diff_html import event_html, revertible_values


def _same(a: Any, b: Any) -> bool:
    """Field values equal as stored (the audit keeps tags as a list, a memory a tuple)."""
    norm = lambda v: list(v) if isinstance(v, list | tuple) else v  # noqa: E731
    return bool(norm(a) == norm(b))


def version_after(memory: Memory, events: list[AuditEvent], index: int) -> dict[str, Any]:
    """The editable fields that differ now from how they were right after ``events[index]``
    (oldest first), with those values: each later event's ``before``, newest first, put
    back over the memory as it is."""
    values = {name: getattr(memory, name) for name in EDITABLE_FIELDS}
    for event in reversed(events[index + 1 :]):
        values.update((k, v) for k, v in (event.before or {}).items() if k in values)
    return {k: v for k, v in values.items() if not _same(v, getattr(memory, k))}


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
        self.memory: Memory | None = None  # as the history was read with
        self.events: list[AuditEvent] = []
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
        self.revert_button = QPushButton("Revert this change", self)
        self.revert_button.setToolTip(
            "Put back the fields the selected change set, as they were before it "
            "(changes made after it to other fields stay)"
        )
        self.version_button = QPushButton("Revert to this version", self)
        self.version_button.setToolTip(
            "Make the memory as it was right after the selected change "
            "(every change made after it is undone)"
        )
        self.revert_action = QAction(self.revert_button.text(), self)  # the list's menu
        self.version_action = QAction(self.version_button.text(), self)
        for button, action, slot in (
            (self.revert_button, self.revert_action, self.revert_selected),
            (self.version_button, self.version_action, self.revert_to_selected),
        ):
            button.setEnabled(False)
            button.clicked.connect(slot)
            action.setEnabled(False)
            action.triggered.connect(slot)
        splitter = QSplitter(Qt.Orientation.Vertical, self)
        splitter.addWidget(self.view)
        splitter.addWidget(self.diff)
        splitter.setSizes([200, 300])
        bottom = QVBoxLayout()  # one above the other: side by side they widen the panel
        for button in (self.revert_button, self.version_button):
            bottom.addWidget(button, 0, Qt.AlignmentFlag.AlignRight)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(splitter, 1)
        layout.addLayout(bottom)
        self.view.selectionModel().currentRowChanged.connect(self.on_event_selected)
        ctx.bridge.changed.connect(self.on_changes)

    def show_memory(self, memory_id: str) -> None:
        if memory_id != self.memory_id:
            self.memory_id = memory_id
            self.version, self.memory, self.events = None, None, []
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
            return service.get(memory_id), service.history.memory(memory_id)

        self.ctx.runner.run(
            work,
            lambda result: self._on_loaded(memory_id, *result),
            self._on_failed,
            key=f"history-{id(self)}",
        )

    def _on_loaded(self, memory_id: str, memory: Memory, events: list[AuditEvent]) -> None:
        if memory_id != self.memory_id:
            return
        self.version, self.memory, self.events = memory.updated_at, memory, list(events)
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
        self.version_button.setEnabled(bool(self.selected_version()))
        self.revert_action.setEnabled(self.revert_button.isEnabled())
        self.version_action.setEnabled(self.version_button.isEnabled())

    def selected_version(self) -> dict[str, Any]:
        """What "Revert to this version" would set: the fields that changed since."""
        row = self.view.currentIndex().row()
        if self.memory is None or not 0 <= row < len(self.events):
            return {}
        return version_after(self.memory, self.events, row)

    def revert_to_selected(self) -> None:
        """The memory as it was right after the selected event."""
        event, values = self.selected_event(), self.selected_version()
        if event is None or self.version is None or not values:
            return
        self.memory_actions.apply_version(
            event.memory_id,
            values,
            self.version,  # as of the memory this history was read with
            f"Revert to the version of {absolute_time(event.at)}",
        )

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

"""What happened in this scope lately, across memories: "what did my agent do today?"."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QObject, Qt, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from ltm_desktop.core.records import GUI_ACTOR
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.context import AppContext
from ltm_desktop.gui.formatting import actor_label
from ltm_desktop.gui.memory_list.row_view import RowTableView
from ltm_desktop.gui.memory_list.view_state import ViewKeeper, configure_table
from ltm_desktop.gui.models.activity_model import COL_ACTION, COL_TITLE, ActivityModel, ActivityRow
from ltm_desktop.gui.models.base import MemoryIdRole
from ltm_desktop.gui.panels.base import ScopedPanel
from ltm_desktop.gui.tasks import TaskRunner
from ltm_desktop.gui.undo import UndoStack

ALL_ACTORS = "Every agent"
ALL_PEOPLE = "Every person"
REPLAY_TIPS = {
    "undo": "Written by Ctrl+Z (undo) in this session",
    "redo": "Written by Ctrl+Shift+Z (redo) in this session",
}


class MarkedActivityModel(ActivityModel):
    """The activity, with the events this session's undo and redo wrote marked as such
    (the audit has them as ordinary changes by the person: ``UndoStack.replayed_by``)."""

    def __init__(
        self, service: MemoryService, runner: TaskRunner, undo: UndoStack, parent: QObject
    ) -> None:
        super().__init__(service, runner, parent)
        self._undo = undo
        undo.replayed.connect(self.on_replayed)

    def cell(self, row: ActivityRow, column: int, role: int) -> Any:
        value = super().cell(row, column, role)
        if column == COL_ACTION and role in (
            Qt.ItemDataRole.DisplayRole,
            Qt.ItemDataRole.ToolTipRole,
        ):
            mode = self._undo.replayed_by(row.event.memory_id, row.event.at)
            if mode is not None:
                return (
                    f"{value} ({mode})"
                    if role == Qt.ItemDataRole.DisplayRole
                    else REPLAY_TIPS[mode]
                )
        return value

    def on_replayed(self) -> None:
        """Rows read before the undo's versions were noted show their mark now."""
        if self.rowCount():
            first, last = self.index(0, COL_ACTION), self.index(self.rowCount() - 1, COL_ACTION)
            self.dataChanged.emit(first, last)


class ActivityPanel(ScopedPanel):
    """The scope's audit events, newest first, read where the view is; filter by who made them.

    Signals:
        memory_activated(str): the person opened the memory of an event.
    """

    memory_activated = Signal(str)

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self.model = MarkedActivityModel(ctx.service, ctx.runner, ctx.undo, self)
        self.actor = QComboBox(self)
        self.actor.addItem(ALL_ACTORS, None)
        self.actor.setMinimumContentsLength(14)
        self.actor.setToolTip("Only the changes of one agent (or of you, in this app)")
        self.person = QComboBox(self)
        self.person.addItem(ALL_PEOPLE, None)
        self.person.setMinimumContentsLength(14)
        self.person.setToolTip("Only the changes one person made (user@host), on any machine")
        self.view = RowTableView(self)
        self.view.setModel(self.model)
        configure_table(self.view, multi=False, stretch=COL_TITLE)
        self.keeper = ViewKeeper(self.view, self.model)
        top = QHBoxLayout()
        caption = QLabel("Recent changes in this scope, newest first. Show:", self)
        caption.setWordWrap(True)  # the tab fits a narrow window
        top.addWidget(caption)
        top.addWidget(self.actor)
        top.addWidget(self.person)
        top.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.view, 1)
        self._actors: set[str] = set()
        self._people: set[str] = set()
        self.actor.currentIndexChanged.connect(self.on_filter_changed)
        self.person.currentIndexChanged.connect(self.on_filter_changed)
        self.model.loaded.connect(self.on_loaded)
        self.model.refresh_finished.connect(self.on_loaded)
        self.model.load_failed.connect(lambda exc: ctx.errors.report(exc, "load the activity"))
        self.view.activated.connect(self.on_activated)

    def reload(self, scope_changed: bool) -> None:
        if scope_changed:
            self._actors.clear()
            self._people.clear()
            for box in (self.actor, self.person):
                box.blockSignals(True)
                box.setCurrentIndex(0)
                while box.count() > 1:
                    box.removeItem(1)
                box.blockSignals(False)
            self.model.set_filter(self.project_id, None, None)
        else:
            self.model.refresh()

    def on_filter_changed(self, _index: int) -> None:
        self.model.set_filter(self.project_id, self.actor.currentData(), self.person.currentData())

    def on_loaded(self, *_args: object) -> None:
        """Offer every agent (plus "gui", which is you) and every person in the scope's
        history in the filters: the model reads them with its count, however far down
        their events are."""
        seen = set(self.model.actors()) | {GUI_ACTOR}
        for actor in sorted(seen - self._actors):
            self.actor.addItem(actor_label(actor), actor)
        self._actors |= seen
        people = set(self.model.people())
        for person in sorted(people - self._people):
            self.person.addItem(person, person)
        self._people |= people

    def on_activated(self, index: QModelIndex) -> None:
        memory_id = index.data(MemoryIdRole)
        if memory_id:
            self.memory_activated.emit(memory_id)

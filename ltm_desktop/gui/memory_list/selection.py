"""The selection of the list in front: Select all, Delete and Restore on it, how many are
selected (in the status bar), and a bulk action's progress there with its Cancel."""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QLineEdit,
    QPlainTextEdit,
    QTabWidget,
    QTextEdit,
)

from ltm_desktop.gui.actions import MemoryActions
from ltm_desktop.gui.inbox.panel import InboxPanel
from ltm_desktop.gui.memory_list.keep_place import KeepPlace
from ltm_desktop.gui.memory_list.memory_table import MemoryTable
from ltm_desktop.gui.panels.stale import StalePanel
from ltm_desktop.gui.panels.trash import TrashPanel
from ltm_desktop.gui.window.menus import WindowActions
from ltm_desktop.gui.window.status_bar import StatusBar


class ListSelection(QObject):
    """Acts on the selection of the list ``center`` shows (the memory list, the Trash, the
    Stale tab, the Inbox) for the window's menu actions."""

    def __init__(
        self,
        center: QTabWidget,
        lists: tuple[MemoryTable, TrashPanel, StalePanel, InboxPanel],
        actions: MemoryActions,
        menu: WindowActions,
        status: StatusBar,
    ) -> None:
        super().__init__(center)
        self._center, self._actions, self._status = center, actions, status
        self._table, self._trash, self._stale, self._inbox = lists
        menu.delete.triggered.connect(self.delete_selected)
        menu.restore.triggered.connect(self.restore_selected)
        actions.progress.connect(status.show_progress)
        actions.writing.connect(self.on_writing)
        status.cancel_requested.connect(actions.cancel)
        self._table.selected_count_changed.connect(self.on_selected_count)
        self._trash.view.selectionModel().selectionChanged.connect(self.on_selected_count)
        center.currentChanged.connect(self.on_selected_count)
        menu.select_all.triggered.connect(self.select_all)
        t, trash = self._table, self._trash
        self.places = (
            KeepPlace(t.list_view, t.model, t.list_keeper),
            KeepPlace(trash.view, trash.model, trash.keeper),
        )
        for place in self.places:
            actions.writing.connect(place.on_writing)

    def on_writing(self, writing: bool) -> None:
        if not writing:
            self._status.hide_progress()

    def on_selected_count(self, *_args: object) -> None:
        """The count of the list in front."""
        shown = self._center.currentWidget()
        count = 0
        if shown is self._table:
            count = self._table.selected_count()
        elif shown is self._trash:
            count = self._trash.selected_count()
        self._status.set_selected(count)

    def select_all(self) -> None:
        """Edit › Select all: in a list, every row it shows (the memory list: all of its
        filtered scope, read or not); in a text field, its text."""
        focus = QApplication.focusWidget()
        if isinstance(focus, QAbstractItemView | QLineEdit | QPlainTextEdit | QTextEdit):
            focus.selectAll()
        elif self._center.currentWidget() is self._table:
            self._table.select_all()

    def delete_selected(self) -> None:
        focus = QApplication.focusWidget()
        center = self._center
        if focus is not None and focus is not center and not center.isAncestorOf(focus):
            # Delete pressed in the editor or the projects list is not meant for the table.
            self._status.say("Delete acts on the memories selected in the list; click it first.")
            return
        shown = center.currentWidget()
        if shown is self._stale:
            self._stale.remove_selected()
        elif shown is self._table:
            self._actions.delete(self._table.selection_target())
        elif shown is self._trash:
            self._status.say("These are already in the Trash; nothing is ever deleted for good.")
        elif shown is self._inbox:
            self._inbox.reject_selected()

    def restore_selected(self) -> None:
        shown = self._center.currentWidget()
        if shown is self._trash:
            self._trash.restore_selected()
        elif shown is self._table:
            self._actions.restore(self._table.selection_target())

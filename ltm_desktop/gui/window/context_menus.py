"""Right-click (and the Menu key, Shift+F10) menus on the lists: the window's own actions,
with their shortcuts shown, so every action is reachable by mouse and by keyboard."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QEvent, QObject, QPoint, Qt
from PySide6.QtGui import QAction, QGuiApplication, QKeyEvent
from PySide6.QtWidgets import QMenu, QTableView

from ltm_desktop.core.projects.identity import REMOTE_PREFIX
from ltm_desktop.core.records import GUI_ACTOR
from ltm_desktop.gui.dialogs.connect import open_folder
from ltm_desktop.gui.inbox.panel import InboxPanel
from ltm_desktop.gui.memory_list.memory_table import MemoryTable
from ltm_desktop.gui.models.base import MemoryIdRole
from ltm_desktop.gui.panels.activity import ActivityPanel
from ltm_desktop.gui.panels.history import HistoryPanel
from ltm_desktop.gui.panels.projects import ProjectsPanel
from ltm_desktop.gui.panels.stale import StalePanel
from ltm_desktop.gui.panels.trash import TrashPanel
from ltm_desktop.gui.window.menus import WindowActions

Entry = QAction | tuple[str, Callable[[], object]] | None  # None: a separator


@dataclass(frozen=True)
class MenuLists:
    """The lists that have a menu, each with what its entries act on."""

    table: MemoryTable
    trash: TrashPanel
    stale: StalePanel
    projects: ProjectsPanel
    inbox: InboxPanel
    activity: ActivityPanel
    history: HistoryPanel


class Goes(Protocol):
    """Where an entry takes the person: the window's navigation."""

    def focus_editor(self) -> None: ...

    def new_memory(self) -> None: ...

    def open_memory(self, memory_id: str) -> None: ...

    def open_activity_item(self, item_id: str) -> None: ...


def menu_key(event: QEvent) -> bool:
    """Whether ``event`` is a press of the Menu key or of Shift+F10 (the keys that open a
    context menu; Qt turns neither into one on every platform)."""
    if event.type() != QEvent.Type.KeyPress or not isinstance(event, QKeyEvent):
        return False
    mods = event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
    if event.key() == Qt.Key.Key_Menu:
        return mods == Qt.KeyboardModifier.NoModifier
    return event.key() == Qt.Key.Key_F10 and mods == Qt.KeyboardModifier.ShiftModifier


def current_row_point(view: QTableView) -> QPoint:
    """Where a menu opened from the keyboard goes: under the current row's start (the
    top of the list when there is none), in viewport coordinates."""
    rect = view.visualRect(view.currentIndex())
    if not rect.isValid() or not view.viewport().rect().intersects(rect):
        return QPoint(8, 8)
    return QPoint(rect.left() + 8, rect.bottom())


class ContextMenus(QObject):
    """Builds each list's menu when it is asked for (``menu_for``), then pops it up: on a
    right-click where it was clicked, on the Menu key or Shift+F10 at the current row."""

    def __init__(
        self, lists: MenuLists, actions: WindowActions, go: Goes, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._lists, self._actions, self._go = lists, actions, go
        self._entries: dict[QTableView, Callable[[QTableView], list[Entry]]] = {}
        table = lists.table
        for view in (table.list_view, table.search_view):
            self._attach(view, self._memory_entries)
        self._attach(lists.trash.view, self._trash_entries)
        self._attach(lists.stale.view, self._stale_entries)
        self._attach(lists.projects.view, self._project_entries)
        self._attach(lists.inbox.view, self._inbox_entries)
        self._attach(lists.activity.view, self._activity_entries)
        self._attach(lists.history.view, self._history_entries)

    def _attach(self, view: QTableView, entries: Callable[[QTableView], list[Entry]]) -> None:
        self._entries[view] = entries
        view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        view.customContextMenuRequested.connect(lambda pos, v=view: self.show(v, pos))
        view.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if isinstance(watched, QTableView) and watched in self._entries and menu_key(event):
            self.show(watched, current_row_point(watched))
            return True
        return False

    def show(self, view: QTableView, pos: QPoint) -> None:
        menu = self.menu_for(view)
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        menu.popup(view.viewport().mapToGlobal(pos))

    def menu_for(self, view: QTableView) -> QMenu:
        """The menu for the view's selection, as a right-click there would show it."""
        menu = QMenu(view)
        for entry in self._entries[view](view):
            if entry is None:
                menu.addSeparator()
            elif isinstance(entry, QAction):
                menu.addAction(entry)
            else:
                text, slot = entry
                menu.addAction(text).triggered.connect(lambda _=False, s=slot: s())
        return menu

    def _copy_ids(self, view: QTableView) -> Callable[[], object]:
        def copy() -> None:
            rows = sorted(i.row() for i in view.selectionModel().selectedRows())
            ids = [view.model().index(r, 0).data(MemoryIdRole) for r in rows]
            QGuiApplication.clipboard().setText("\n".join(i for i in ids if i))

        return copy

    def _memory_entries(self, view: QTableView) -> list[Entry]:
        a = self._actions
        has_rows = bool(view.selectionModel().selectedRows())
        entries: list[Entry] = []
        if has_rows:
            entries += [("Open in editor\tEnter", self._go.focus_editor), a.delete]
            if self._lists.table.show_removed.isChecked():
                entries.append(a.restore)
            entries += [None, a.bulk_edit, a.move_to, a.copy_to, None]
            entries += [("Copy id", self._copy_ids(view)), None]
        entries += [a.new_memory, a.undo, a.redo, None, a.find, a.refresh]
        return entries

    def _trash_entries(self, view: QTableView) -> list[Entry]:
        a, trash = self._actions, self._lists.trash
        has_rows = bool(view.selectionModel().selectedRows())
        erase = trash.erase
        rows: list[Entry] = (
            [
                a.restore,
                ("Erase permanently…", erase.ask_erase),
                ("Copy id", self._copy_ids(view)),
                None,
            ]
            if has_rows and not trash.busy()
            else []
        )
        return [*rows, a.undo, a.redo, a.refresh]

    def _stale_entries(self, view: QTableView) -> list[Entry]:
        a = self._actions
        has_rows = bool(view.selectionModel().selectedRows())
        rows: list[Entry] = (
            [
                ("Keep (mark reviewed)", self._lists.stale.keep_selected),
                a.delete,
                ("Copy id", self._copy_ids(view)),
                None,
            ]
            if has_rows
            else []
        )
        return [*rows, a.undo, a.redo, a.refresh]

    def _project_entries(self, view: QTableView) -> list[Entry]:
        projects, a = self._lists.projects, self._actions
        row = projects.model.row_at(view.currentIndex().row())
        entries: list[Entry] = []
        if row is not None:

            def new_here(project_id: str = row.project_id) -> None:
                projects.select(project_id)
                self._go.new_memory()

            entries.append(("New memory here", new_here))
            if row.path:
                path = row.path
                entries += [
                    ("Copy path", lambda: QGuiApplication.clipboard().setText(path)),
                    ("Open folder", lambda: open_folder(Path(path))),
                ]
            if not row.is_global:
                source = row
                entries.append(
                    (
                        "Merge into…",
                        lambda: projects.merger.ask(source, projects.model.all_projects()),
                    )
                )
            if row.project_id.startswith(REMOTE_PREFIX) and row.path:
                clone = row
                entries.append(
                    ("Make this folder its own project…", lambda: projects.detacher.ask(clone))
                )
            entries.append(None)
        entries += [("Mark all seen", self._lists.table.new_since.mark_all_seen), a.refresh]
        return entries

    def _inbox_entries(self, view: QTableView) -> list[Entry]:
        inbox, a = self._lists.inbox, self._actions
        count = len(inbox.selected_rows())
        entries: list[Entry] = []
        if count:
            entries += [("Approve\tA", inbox.approve_selected)]
            if count == 1:
                entries.append(("Edit then approve…\tE", inbox.edit_selected))
            entries += [("Reject\tR", inbox.reject_selected), None]
        return [*entries, ("Select all", view.selectAll), None, a.undo, a.redo, a.refresh]

    def _activity_entries(self, view: QTableView) -> list[Entry]:
        go, a = self._go, self._actions
        index = view.currentIndex()
        row = self._lists.activity.model.row_at(index.row()) if index.isValid() else None
        entries: list[Entry] = []
        if row is not None:
            item = row.event.memory_id
            if item.startswith("mem_"):

                def history(memory_id: str = item) -> None:
                    go.open_memory(memory_id)
                    a.go_history.trigger()

                entries += [
                    ("Show in list", lambda: go.open_activity_item(item)),
                    ("Show history", history),
                ]
            elif item.startswith("prop_"):
                entries.append(("Show in the Inbox", lambda: go.open_activity_item(item)))
            if self._newest_app_action(view, index.row()):
                entries.append(a.undo)
            entries += [("Copy id", lambda: QGuiApplication.clipboard().setText(item)), None]
        return [*entries, a.refresh]

    def _newest_app_action(self, view: QTableView, row: int) -> bool:
        """Whether the event at ``row`` is the app's and the newest the list holds while
        the app has something to undo (Activity lists newest first). The undo stack does
        not say which events its top entry made, so this is as near as the list can tell."""
        event = self._lists.activity.model.row_at(row)
        return (
            row == 0
            and event is not None
            and event.event.actor == GUI_ACTOR
            and self._actions.undo.isEnabled()
        )

    def _history_entries(self, view: QTableView) -> list[Entry]:
        history = self._lists.history
        entries: list[Entry] = []
        if history.selected_event() is not None:
            entries += [a for a in (history.revert_action, history.version_action) if a.isEnabled()]
            text = history.diff.toPlainText()
            entries.append(("Copy diff", lambda: QGuiApplication.clipboard().setText(text)))
        return entries

"""Shift+F10 and the Menu key open the focused list's context menu at its current row."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMenu, QTableView
from pytestqt.qtbot import QtBot

from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.window.main_window import MainWindow
from tests.gui.conftest import WindowFactory
from tests.gui.memory_list.test_list_keys import fill

# A popup menu asks the offscreen platform for what it cannot do (these say only that).
pytestmark = pytest.mark.qt_log_ignore(
    "^This plugin does not support raise\\(\\)$",
    "^This plugin does not support grabbing the keyboard$",
)
KEYS = [
    (Qt.Key.Key_F10, Qt.KeyboardModifier.ShiftModifier),
    (Qt.Key.Key_Menu, Qt.KeyboardModifier.NoModifier),
]


def open_menu(qtbot: QtBot, view: QTableView, key: Qt.Key, modifier: Qt.KeyboardModifier) -> QMenu:
    view.setFocus()
    qtbot.waitUntil(view.hasFocus)
    qtbot.keyClick(view, key, modifier)
    qtbot.waitUntil(lambda: isinstance(QApplication.activePopupWidget(), QMenu))
    menu = QApplication.activePopupWidget()
    assert isinstance(menu, QMenu)
    return menu


def texts(menu: QMenu) -> list[str]:
    return [a.text().split("\t")[0] for a in menu.actions() if not a.isSeparator()]


def at_current_row(view: QTableView, menu: QMenu) -> bool:
    rect = view.visualRect(view.currentIndex())
    top_left = view.viewport().mapToGlobal(rect.topLeft())
    return abs(menu.pos().y() - top_left.y()) <= rect.height() * 2


@pytest.mark.parametrize(("key", "modifier"), KEYS)
def test_the_menu_keys_open_the_memory_lists_menu_at_its_row(
    qtbot: QtBot,
    make_window: WindowFactory,
    service: MemoryService,
    key: Qt.Key,
    modifier: Qt.KeyboardModifier,
) -> None:
    project = fill(service, "/src/menu-keys", 8)
    window = make_window(service, scope=project)
    table = window.table
    qtbot.waitUntil(lambda: table.model.rowCount() == 8)
    assert table.select_memory(table.model.row_at(5).id)
    menu = open_menu(qtbot, table.list_view, key, modifier)
    assert texts(menu)[0] == "Open in editor"
    assert at_current_row(table.list_view, menu)
    menu.close()


def trash_view(window: MainWindow) -> QTableView:
    window.center.setCurrentWidget(window.trash)
    return window.trash.view


def stale_view(window: MainWindow) -> QTableView:
    window.center.setCurrentWidget(window.stale)
    return window.stale.view


@pytest.mark.parametrize("which", [trash_view, stale_view])
def test_shift_f10_opens_the_menu_of_the_trash_and_stale_lists(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, which: object
) -> None:
    project = fill(service, "/src/menu-tabs", 2)
    window = make_window(service, scope=project)
    view = which(window)  # type: ignore[operator]
    menu = open_menu(qtbot, view, Qt.Key.Key_F10, Qt.KeyboardModifier.ShiftModifier)
    assert "&Undo" in texts(menu)
    menu.close()


def projects_view(window: MainWindow) -> QTableView:
    return window.projects.view


def inbox_view(window: MainWindow) -> QTableView:
    window.center.setCurrentWidget(window.inbox)
    return window.inbox.view


def activity_view(window: MainWindow) -> QTableView:
    window.center.setCurrentWidget(window.activity)
    return window.activity.view


@pytest.mark.parametrize("which", [projects_view, inbox_view, activity_view])
def test_shift_f10_opens_the_menu_of_the_other_lists(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, which: object
) -> None:
    project = fill(service, "/src/menu-others", 2)
    window = make_window(service, scope=project)
    view = which(window)  # type: ignore[operator]
    qtbot.waitUntil(window.is_idle)
    menu = open_menu(qtbot, view, Qt.Key.Key_F10, Qt.KeyboardModifier.ShiftModifier)
    assert texts(menu)
    menu.close()

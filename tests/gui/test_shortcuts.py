"""Every menu action has a shortcut (as the README says), and no two actions share one."""

from __future__ import annotations

from collections import Counter

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu
from pytestqt.qtbot import QtBot

from ltm_desktop.core.service import MemoryService
from tests.gui.conftest import WindowFactory


def test_every_menu_action_has_a_shortcut_of_its_own(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService
) -> None:
    window = make_window(service)
    a = window.menu_actions
    for action in (
        a.revert,
        a.import_,
        a.export,
        a.backup_now,
        a.extract,
        window.settings_action,
        a.open_folder,
        a.show_removed,
        a.show_expired,
        a.about,
    ):
        assert not action.shortcut().isEmpty(), action.text()
    for entry in window.menuBar().actions():
        menu = entry.menu()
        assert isinstance(menu, QMenu)
        for action in menu.actions():
            if not action.isSeparator():
                assert not action.shortcut().isEmpty(), action.text()
    keys = Counter(
        key.toString()
        for action in window.findChildren(QAction)
        if action.shortcutContext() != action.shortcutContext().WidgetShortcut
        for key in action.shortcuts()
    )
    assert [key for key, n in keys.items() if n > 1] == []


def test_the_view_menu_goes_to_the_overview_too(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService
) -> None:
    """Ctrl+7 was only on the window: a person looking through the menus never met it."""
    window = make_window(service)
    view = next(e.menu() for e in window.menuBar().actions() if e.text() == "&View")
    assert isinstance(view, QMenu)
    overview = next(a for a in view.actions() if a.text() == "&Overview")
    assert overview.shortcut().toString() == "Ctrl+7"
    overview.trigger()
    qtbot.waitUntil(lambda: window.center.currentWidget() is window.overview)

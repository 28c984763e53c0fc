"""Right-click menus of the Projects, Inbox, Activity and History lists, and Erase in the
Trash's."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMenu
from pytestqt.qtbot import QtBot

from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.window.main_window import MainWindow
from tests.gui.conftest import BILLING, WindowFactory, add
from tests.gui.memory_list.test_list_keys import select_row

pytestmark = pytest.mark.qt_log_ignore(
    "^This plugin does not support raise\\(\\)$",
    "^This plugin does not support grabbing the keyboard$",
)


def texts(menu: QMenu) -> list[str]:
    return [a.text().split("\t")[0] for a in menu.actions() if not a.isSeparator()]


def trigger(menu: QMenu, text: str) -> None:
    action = next(a for a in menu.actions() if a.text().split("\t")[0] == text)
    action.trigger()


def test_the_projects_menu(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    add(service, billing, "Deploys go through the release branch")
    window = make_window(service)
    projects = window.projects
    qtbot.waitUntil(lambda: projects.model.row_of(billing) >= 0)
    projects.select(billing)
    menu = window.context_menus.menu_for(projects.view)
    assert texts(menu) == [
        "New memory here",
        "Copy path",
        "Open folder",
        "Merge into…",
        "Mark all seen",
        "Re&fresh",
    ]
    trigger(menu, "Copy path")
    assert QGuiApplication.clipboard().text() == BILLING
    projects.select(projects.model.all_projects()[0].project_id)  # global
    menu = window.context_menus.menu_for(projects.view)
    trigger(menu, "New memory here")
    assert window.ctx.scope.project_id == projects.model.all_projects()[0].project_id
    assert window.editor.new_project == window.ctx.scope.project_id


def test_the_activity_menu_shows_history_and_undoes_the_newest_app_action(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    memory = add(service, billing, "The staging database is reset every night")
    window = make_window(service, scope=billing)
    qtbot.waitUntil(lambda: window.table.select_memory(memory.id))
    window.table.list_view.setFocus()
    window.menu_actions.delete.trigger()
    qtbot.waitUntil(lambda: service.get(memory.id).disabled)
    window.center.setCurrentWidget(window.activity)
    activity = window.activity
    qtbot.waitUntil(lambda: activity.model.rowCount() == 2 and window.is_idle())
    select_row(activity.view, 0)  # the removal, the app's newest
    menu = window.context_menus.menu_for(activity.view)
    assert texts(menu)[:2] == ["Show in list", "Show history"]
    assert any(t.startswith("&Undo") for t in texts(menu))
    select_row(activity.view, 1)  # the agent's creation: no undo offered
    menu = window.context_menus.menu_for(activity.view)
    assert not any(t.startswith("&Undo") for t in texts(menu))
    trigger(menu, "Show history")
    assert window.details.currentWidget() is window.history
    qtbot.waitUntil(lambda: window.history.memory_id == memory.id)


def test_the_history_menu_copies_the_diff(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    memory = add(service, billing, "Old text of the note")
    service.update(memory.id, {"content": "New text of the note"}, "agent")
    window = make_window(service, scope=billing)
    window.details.setCurrentWidget(window.history)
    qtbot.waitUntil(lambda: window.table.select_memory(memory.id))
    history = window.history
    qtbot.waitUntil(lambda: history.model.rowCount() == 2)
    menu = window.context_menus.menu_for(history.view)
    assert "Copy diff" in texts(menu)
    assert "Revert this change" in texts(menu)
    assert "Revert to this version" not in texts(menu)  # the newest: the memory as it is
    trigger(menu, "Copy diff")
    assert "New" in QGuiApplication.clipboard().text()


def test_the_inbox_menu(qtbot: QtBot, make_window: WindowFactory, service: MemoryService) -> None:
    window = make_window(service)
    menu = window.context_menus.menu_for(window.inbox.view)
    assert "Select all" in texts(menu)
    assert "Approve" not in texts(menu)  # nothing selected


def test_the_trash_menu_erases_with_its_confirmation(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    memory = add(service, billing, "An old note for the trash")
    service.remove(memory.id, "agent")
    window: MainWindow = make_window(service, scope=billing)
    window.center.setCurrentWidget(window.trash)
    trash = window.trash
    qtbot.waitUntil(lambda: trash.model.rowCount() == 1 and window.is_idle())
    select_row(trash.view, 0)
    menu = window.context_menus.menu_for(trash.view)
    trigger(menu, "Erase permanently…")
    qtbot.waitUntil(lambda: trash.erase.confirmation is not None)
    box = trash.erase.confirmation
    assert box is not None
    assert "Erase 1 memory" in box.text()
    box.reject()
    qtbot.waitUntil(lambda: trash.erase.confirmation is None)
    assert service.get(memory.id).disabled  # still there: nothing erased on Cancel

"""Moving around the window: scroll position per scope, and keyboard-first use."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from ltm_desktop.core.records import MemoryDraft
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.window.main_window import TAB_MEMORIES, TAB_OBSERVATIONS, TAB_TRASH
from tests.gui.conftest import WindowFactory


def fill(service: MemoryService, cwd: str, count: int) -> str:
    project = service.resolve_scope(cwd=cwd, register=True)
    drafts = [MemoryDraft(f"{cwd} note number {i} about subject {i * 7}") for i in range(count)]
    service.import_memories(project, drafts, "test")
    return project


def test_switching_projects_starts_at_the_top(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService
) -> None:
    first = fill(service, "/src/first", 150)
    second = fill(service, "/src/second", 150)
    window = make_window(service, scope=first)
    view = window.table.list_view
    qtbot.waitUntil(lambda: window.table.model.rowCount() >= 100)
    bar = view.verticalScrollBar()
    bar.setValue(bar.maximum())
    qtbot.waitUntil(lambda: view.rowAt(0) > 20)
    window.projects.select(second)
    qtbot.waitUntil(lambda: window.ctx.scope.project_id == second)
    qtbot.waitUntil(lambda: window.is_idle() and window.table.model.rowCount() > 0)
    qtbot.waitUntil(lambda: bar.value() == 0)
    assert view.rowAt(0) == 0
    assert window.table.model.row_at(0).project_id == second


def test_keyboard_first_focus_search_results_and_editor(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService
) -> None:
    project = fill(service, "/src/keys", 5)
    window = make_window(service, scope=project)
    window.activateWindow()
    table = window.table
    qtbot.waitUntil(lambda: QApplication.focusWidget() is table.list_view)  # not the filter
    window.menu_actions.find.trigger()
    qtbot.waitUntil(table.search_box.hasFocus)
    qtbot.keyClicks(table.search_box, "number")
    qtbot.keyClick(table.search_box, Qt.Key.Key_Down)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is table.search_view)
    assert table.search_view.currentIndex().row() == 0
    first = table.search_model.row_at(0).id
    qtbot.waitUntil(lambda: window.editor.memory_id == first)
    qtbot.keyClick(table.search_view, Qt.Key.Key_Return)  # Enter on a hit: edit it
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.editor.form.content)
    table.search_box.setFocus()
    table.search_box.setText("subject")
    qtbot.keyClick(table.search_box, Qt.Key.Key_Return)  # Enter searches at once
    qtbot.waitUntil(lambda: QApplication.focusWidget() is table.search_view)
    window.details.setCurrentIndex(1)
    window.menu_actions.go_editor.trigger()  # Ctrl+E: the editor's tab and its text
    assert window.details.currentIndex() == 0
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.editor.form.content)


def test_context_menus_offer_the_windows_actions(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService
) -> None:
    project = fill(service, "/src/menus", 3)
    window = make_window(service, scope=project)
    view = window.table.list_view
    qtbot.waitUntil(lambda: window.table.select_memory(window.table.model.row_at(0).id))
    chosen = window.table.model.row_at(0).id
    assert view.contextMenuPolicy() == Qt.ContextMenuPolicy.CustomContextMenu
    menu = window.context_menus.menu_for(view)
    texts = [a.text().split("\t")[0] for a in menu.actions() if not a.isSeparator()]
    assert texts[:2] == ["Open in editor", "&Delete (move to Trash)"]
    assert "Copy id" in texts
    assert "&Redo" in texts
    delete = next(a for a in menu.actions() if a.text().startswith("&Delete"))
    assert delete.shortcut().toString()  # shown with its key
    view.setFocus()
    delete.trigger()
    qtbot.waitUntil(lambda: service.get(chosen).disabled)
    menu.close()


def test_redo_after_undo(qtbot: QtBot, make_window: WindowFactory, service: MemoryService) -> None:
    project = fill(service, "/src/redo", 2)
    window = make_window(service, scope=project)
    a = window.menu_actions
    assert a.redo.shortcuts() == [QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")]
    chosen = window.table.model.row_at(0).id
    qtbot.waitUntil(lambda: window.table.select_memory(chosen))
    window.table.list_view.setFocus()
    a.delete.trigger()
    qtbot.waitUntil(lambda: service.get(chosen).disabled)
    qtbot.waitUntil(a.undo.isEnabled)
    assert not a.redo.isEnabled()
    a.undo.trigger()
    qtbot.waitUntil(lambda: not service.get(chosen).disabled)
    qtbot.waitUntil(a.redo.isEnabled)
    assert a.redo.text().startswith("&Redo Delete")
    a.redo.trigger()
    qtbot.waitUntil(lambda: service.get(chosen).disabled)
    qtbot.waitUntil(lambda: a.undo.text().startswith("&Undo Delete"))
    assert not a.redo.isEnabled()
    a.undo.trigger()  # and back again: undo of the redo
    qtbot.waitUntil(lambda: not service.get(chosen).disabled)
    window.ctx.service.update(chosen, {"importance": 2}, "gui")
    window.memory_actions.set_importance({chosen: service.get(chosen).updated_at}, 7)
    qtbot.waitUntil(lambda: service.get(chosen).importance == 7)
    qtbot.waitUntil(lambda: not a.redo.isEnabled())  # a new action ends what could be redone


def test_usable_at_800_pixels_with_collapsible_side_panels(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, gui_settings: QSettings
) -> None:
    project = fill(service, "/src/narrow", 3)
    window = make_window(service, scope=project)
    assert window.minimumSizeHint().width() <= 800
    window.resize(800, 600)
    qtbot.waitUntil(lambda: window.width() == 800)
    for panel in (window.table, window.details):
        assert panel.isVisible()
        assert panel.width() > 0
    assert not window.projects.isVisible()  # stepped aside for the list, not the person's choice
    a = window.menu_actions
    a.show_details.trigger()
    assert not window.details.isVisible()
    qtbot.waitUntil(lambda: window.table.width() > 700)  # the list takes the room
    window.menu_actions.go_editor.trigger()  # Ctrl+E brings the editor back
    assert window.details.isVisible()
    assert a.show_details.isChecked()
    a.show_details.trigger()
    window.shutdown()
    assert gui_settings.value("panels/projects") in (True, "true")  # back when there is room
    assert gui_settings.value("panels/details") in (False, "false")


@pytest.mark.slow
def test_the_status_names_the_count_of_the_scope_shown_from_any_tab(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService
) -> None:
    """The memory list reloads only when shown: switching projects on another tab must
    not show the new project's name with the last project's count."""
    first = fill(service, "/src/first", 4)
    second = fill(service, "/src/second", 12)
    window = make_window(service, scope=first)
    label = window.status.scope_label
    qtbot.waitUntil(lambda: label.text().endswith(": 4 memories"))
    window.center.setCurrentIndex(TAB_OBSERVATIONS)
    window.projects.select(second)
    qtbot.waitUntil(lambda: window.ctx.scope.project_id == second and window.is_idle())
    assert label.text() == f"{window.ctx.scope.name}: 12 memories"
    window.center.setCurrentIndex(TAB_MEMORIES)
    qtbot.waitUntil(lambda: window.table.model.total == 12)
    assert label.text() == f"{window.ctx.scope.name}: 12 memories"

    window.center.setCurrentIndex(TAB_TRASH)  # the list is hidden, so not refreshed
    for memory in service.list_memories(second)[:3]:
        service.remove(memory.id, "an-agent")
    qtbot.waitUntil(lambda: label.text() == f"{window.ctx.scope.name}: 9 memories")


def test_the_tab_shortcuts_put_the_keyboard_in_the_tabs_list(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService
) -> None:
    """After Ctrl+0 (the sidebar), Ctrl+2 then Down moves in the Trash, not the sidebar."""
    project = fill(service, "/src/shop", 3)
    window = make_window(service, scope=project)
    window.activateWindow()
    window.menu_actions.go_projects.trigger()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.projects.view)
    cases = (
        (window.menu_actions.go_trash, window.trash.view),
        (window.menu_actions.go_inbox, window.inbox.view),
        (window.menu_actions.go_memories, window.table.list_view),
    )
    for action, view in cases:
        action.trigger()
        qtbot.waitUntil(lambda v=view: QApplication.focusWidget() is v)  # type: ignore[misc]
    assert window.ctx.scope.project_id == project  # no arrow went to the sidebar

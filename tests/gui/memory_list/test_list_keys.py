"""The lists under the keyboard: the first arrow press, the row after a removal, the menu key."""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, Qt
from PySide6.QtWidgets import QApplication, QTableView
from pytestqt.qtbot import QtBot

from ltm_desktop.core.records import MemoryDraft
from ltm_desktop.core.service import MemoryService
from tests.gui.conftest import WindowFactory


def fill(service: MemoryService, cwd: str, count: int) -> str:
    project = service.resolve_scope(cwd=cwd, register=True)
    drafts = [MemoryDraft(f"{cwd} note number {i} about subject {i * 7}") for i in range(count)]
    service.import_memories(project, drafts, "test")
    return project


def select_row(view: QTableView, row: int) -> None:
    """Select a row as a click would (``selectRow`` reads the keyboard's modifiers, which
    a key test before may have left held)."""
    flags = QItemSelectionModel.SelectionFlag
    view.selectionModel().setCurrentIndex(
        view.model().index(row, 0), flags.ClearAndSelect | flags.Rows
    )


def selected_rows(view: object) -> list[int]:
    return sorted(i.row() for i in view.selectionModel().selectedRows())  # type: ignore[attr-defined]


def test_the_first_down_selects_the_first_row(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService
) -> None:
    project = fill(service, "/src/keys", 5)
    window = make_window(service, scope=project)
    window.activateWindow()
    table = window.table
    view = table.list_view
    qtbot.waitUntil(lambda: QApplication.focusWidget() is view and table.model.rowCount() == 5)
    # On a desktop the window is activated (its focus widget gets a focus-in) after the
    # first page came in, and Qt then makes row 0 current without selecting it.
    view.clearFocus()
    view.setFocus(Qt.FocusReason.ActiveWindowFocusReason)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is view)
    qtbot.keyClick(view, Qt.Key.Key_Down)
    assert selected_rows(view) == [0]
    first = table.model.row_at(0).id
    qtbot.waitUntil(lambda: window.editor.memory_id == first)
    qtbot.keyClick(view, Qt.Key.Key_Down)
    assert selected_rows(view) == [1]


def test_the_first_down_after_a_search_selects_the_first_hit(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService
) -> None:
    project = fill(service, "/src/keys", 5)
    window = make_window(service, scope=project)
    window.activateWindow()
    table = window.table
    table.search_box.setFocus()
    qtbot.keyClicks(table.search_box, "number")
    qtbot.waitUntil(lambda: table.search_model.rowCount() == 5 and not table.search_model.pending)
    table.search_view.setFocus(Qt.FocusReason.TabFocusReason)  # Tab from the search box
    qtbot.waitUntil(lambda: QApplication.focusWidget() is table.search_view)
    qtbot.keyClick(table.search_view, Qt.Key.Key_Down)
    assert selected_rows(table.search_view) == [0]


def test_after_delete_the_row_that_took_its_place_is_selected(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService
) -> None:
    project = fill(service, "/src/gone", 5)
    window = make_window(service, scope=project)
    table, view = window.table, window.table.list_view
    qtbot.waitUntil(lambda: table.model.rowCount() == 5)
    ids = [table.model.row_at(r).id for r in range(5)]
    assert table.select_memory(ids[2])
    view.setFocus()
    window.menu_actions.delete.trigger()
    qtbot.waitUntil(lambda: table.model.rowCount() == 4 and window.is_idle())
    assert selected_rows(view) == [2]
    assert table.current_id() == ids[3]  # the next one, now in its place
    qtbot.waitUntil(lambda: window.editor.memory_id == ids[3])
    assert table.select_memory(ids[4])  # the last: its neighbour above takes over
    window.menu_actions.delete.trigger()
    qtbot.waitUntil(lambda: table.model.rowCount() == 3 and window.is_idle())
    assert table.current_id() == ids[3]
    assert selected_rows(view) == [2]


def test_after_a_move_the_row_that_took_its_place_is_selected(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService
) -> None:
    project = fill(service, "/src/moving", 4)
    other = fill(service, "/src/other", 1)
    window = make_window(service, scope=project)
    table, view = window.table, window.table.list_view
    qtbot.waitUntil(
        lambda: table.model.rowCount() == 4 and window.projects.model.row_of(other) >= 0
    )
    ids = [table.model.row_at(r).id for r in range(4)]
    assert table.select_memory(ids[1])
    view.setFocus()
    dialog = window.bulk.transfer_selected(copy=False)
    assert dialog is not None
    dialog.scope.setCurrentIndex(dialog.scope.findData(other))
    dialog.accept()
    qtbot.waitUntil(lambda: table.model.rowCount() == 3 and window.is_idle())
    assert table.current_id() == ids[2]
    assert selected_rows(view) == [1]


def test_after_a_restore_the_trash_selects_the_next_row(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService
) -> None:
    project = fill(service, "/src/trash", 3)
    for memory in service.list_memories(project):
        service.remove(memory.id, "agent")
    window = make_window(service, scope=project)
    window.center.setCurrentWidget(window.trash)
    trash = window.trash
    qtbot.waitUntil(lambda: trash.model.rowCount() == 3 and window.is_idle())
    ids = [trash.model.row_at(r).id for r in range(3)]
    select_row(trash.view, 0)
    trash.restore_selected()
    qtbot.waitUntil(lambda: trash.model.rowCount() == 2 and window.is_idle())
    assert selected_rows(trash.view) == [0]
    assert trash.model.row_at(0).id == ids[1]

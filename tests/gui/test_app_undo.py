"""One undo for the app: Ctrl+Z undoes the last app action wherever the focus is, except in a
text field with typing of its own to undo; Ctrl+S leaves the editor for the list (so the
status bar's "Ctrl+Z undoes it" is true); Escape leaves an editor field, keeping its edits."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.window.main_window import TAB_STALE, MainWindow
from tests.conftest import FakeClock
from tests.gui.conftest import WindowFactory, add, wait_idle

CTRL = Qt.KeyboardModifier.ControlModifier


def open_in_editor(qtbot: QtBot, window: MainWindow, memory_id: str) -> None:
    qtbot.waitUntil(lambda: window.table.model.row_of(memory_id) >= 0)
    assert window.table.select_memory(memory_id)
    qtbot.waitUntil(lambda: window.editor.memory_id == memory_id)


def focused() -> QWidget | None:
    return QApplication.focusWidget()


def test_after_ctrl_s_focus_is_in_the_list_and_ctrl_z_undoes_the_save(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    memory = add(service, billing, "Deploys go out on Tuesdays")
    window = make_window(service, scope=billing)
    open_in_editor(qtbot, window, memory.id)
    window.focus_editor()
    content = window.editor.form.content
    qtbot.waitUntil(lambda: focused() is content)
    content.selectAll()
    qtbot.keyClicks(content, "Deploys go out on Thursdays")
    qtbot.keyClick(content, Qt.Key.Key_S, CTRL)
    qtbot.waitUntil(lambda: service.get(memory.id).content == "Deploys go out on Thursdays")
    wait_idle(qtbot, window)
    assert focused() is window.table.list_view, f"focus stayed in {focused()!r}"
    assert window.table.current_id() == memory.id
    qtbot.keyClick(focused(), Qt.Key.Key_Z, CTRL)
    qtbot.waitUntil(lambda: service.get(memory.id).content == "Deploys go out on Tuesdays")


def test_ctrl_z_in_the_stale_spin_box_undoes_the_last_action(
    qtbot: QtBot,
    make_window: WindowFactory,
    service: MemoryService,
    billing: str,
    clock: FakeClock,
) -> None:
    texts = ["Deploys need a green build", "Staging lives on port 8080", "Use pnpm, not npm"]
    memories = [add(service, billing, text, importance=1) for text in texts]
    clock.advance(days=61)
    window = make_window(service, scope=billing)
    window.center.setCurrentIndex(TAB_STALE)
    stale = window.stale
    qtbot.waitUntil(lambda: stale.model.rowCount() == 3)
    stale.view.selectAll()
    stale.remove_button.click()
    qtbot.waitUntil(lambda: service.count_memories(billing) == 0)
    wait_idle(qtbot, window)
    stale.importance.setFocus()
    qtbot.waitUntil(lambda: focused() is stale.importance)
    qtbot.keyClick(stale.importance, Qt.Key.Key_Z, CTRL)
    qtbot.waitUntil(lambda: service.count_memories(billing) == 3)
    assert all(not service.get(m.id).disabled for m in memories)


def test_escape_leaves_the_editor_field_and_keeps_its_edits(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    memory = add(service, billing, "Tests run with make test")
    window = make_window(service, scope=billing)
    open_in_editor(qtbot, window, memory.id)
    window.focus_editor()
    content = window.editor.form.content
    qtbot.waitUntil(lambda: focused() is content)
    qtbot.keyClicks(content, " and then some")
    assert window.editor.is_dirty()
    qtbot.keyClick(content, Qt.Key.Key_Escape)
    assert focused() is window.table.list_view
    assert window.editor.is_dirty()
    assert " and then some" in content.toPlainText()
    title = window.editor.form.title
    title.setFocus()
    qtbot.waitUntil(lambda: focused() is title)
    qtbot.keyClick(title, Qt.Key.Key_Escape)
    assert focused() is window.table.list_view


def test_a_text_field_with_its_own_typing_undoes_that_first(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    memory = add(service, billing, "Use tabs, not spaces")
    window = make_window(service, scope=billing)
    window.memory_actions.delete({memory.id: memory.updated_at})
    qtbot.waitUntil(lambda: service.count_memories(billing) == 0)
    wait_idle(qtbot, window)
    box = window.table.tag
    box.setFocus()
    qtbot.waitUntil(lambda: focused() is box)
    qtbot.keyClicks(box, "style")
    qtbot.keyClick(box, Qt.Key.Key_Z, CTRL)  # the field's own typing goes first
    assert box.text() == ""
    wait_idle(qtbot, window)
    assert service.count_memories(billing) == 0
    qtbot.keyClick(box, Qt.Key.Key_Z, CTRL)  # nothing left to undo there: the app's undo
    qtbot.waitUntil(lambda: service.count_memories(billing) == 1)

"""The Activity tab marks the events this session's undo and redo wrote: in the audit they
look like any change the person makes (actor gui, an ordinary action)."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.models.activity_model import COL_ACTION
from ltm_desktop.gui.window.main_window import MainWindow
from tests.gui.conftest import WindowFactory, add, wait_idle


def actions(window: MainWindow) -> list[str]:
    model = window.activity.model
    return [str(model.index(row, COL_ACTION).data()) for row in range(model.rowCount())]


def test_activity_marks_what_undo_and_redo_wrote(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    memory = add(service, billing, "The staging database is reset every night")
    window = make_window(service, scope=billing)
    qtbot.waitUntil(lambda: window.table.select_memory(memory.id))
    window.table.list_view.setFocus()
    window.menu_actions.delete.trigger()
    qtbot.waitUntil(lambda: service.get(memory.id).disabled)
    wait_idle(qtbot, window)
    window.center.setCurrentWidget(window.activity)
    window.memory_actions.undo()
    qtbot.waitUntil(lambda: not service.get(memory.id).disabled)
    qtbot.waitUntil(lambda: window.activity.model.rowCount() == 3 and window.is_idle())
    # newest first: the undo's restore, the Delete, the agent's creation
    qtbot.waitUntil(lambda: actions(window) == ["restored (undo)", "removed", "created"])
    window.memory_actions.redo()
    qtbot.waitUntil(lambda: service.get(memory.id).disabled)
    qtbot.waitUntil(lambda: window.activity.model.rowCount() == 4 and window.is_idle())
    qtbot.waitUntil(
        lambda: actions(window) == ["removed (redo)", "restored (undo)", "removed", "created"]
    )
    tip = window.activity.model.index(0, COL_ACTION).data(3)  # ToolTipRole
    assert "redo" in str(tip).lower()

"""Moving around the window: scroll position per scope, and keyboard-first use."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from ltm_desktop.core.records import MemoryDraft
from ltm_desktop.core.service import MemoryService
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

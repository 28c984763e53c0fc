"""The window reads at 800, 1280 and 1920 px wide: a usable search box, a list whose
titles show, every tab in view, side panels that step aside before the list is squeezed."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from ltm_desktop.core.records import MemoryDraft
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.models.memory_model import COL_TITLE
from ltm_desktop.gui.window.main_window import MainWindow
from tests.gui.conftest import WindowFactory

SEARCH_MIN = 220
TITLE_MIN = 160


def fill_titled(service: MemoryService, count: int = 12) -> str:
    project = service.resolve_scope(cwd="/home/dev/src/billing-api", register=True)
    drafts = [
        MemoryDraft(
            f"Deploy step {i}: run the migrations before the blue-green switch",
            title=f"Production deployment step {i}: migrations run before the switch",
        )
        for i in range(count)
    ]
    service.import_memories(project, drafts, "test")
    return project


def sized(qtbot: QtBot, window: MainWindow, width: int, height: int) -> None:
    window.resize(width, height)
    qtbot.waitUntil(lambda: window.width() == width and window.height() == height)
    qtbot.waitUntil(lambda: window.table.list_view.isVisible())


@pytest.mark.parametrize(("width", "height"), [(800, 800), (1280, 800), (1920, 1080)])
def test_the_window_reads_at_each_width(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, width: int, height: int
) -> None:
    window = make_window(service, scope=fill_titled(service))
    sized(qtbot, window, width, height)
    table = window.table
    qtbot.waitUntil(lambda: table.search_box.width() >= SEARCH_MIN)
    view = table.list_view
    qtbot.waitUntil(lambda: view.columnWidth(COL_TITLE) >= TITLE_MIN)
    assert view.horizontalScrollBar().maximum() == 0  # the list fits its pane
    bar = window.center.tabBar()
    for index in range(bar.count()):  # every tab in view, the Memories tab first of all
        assert bar.rect().contains(bar.tabRect(index)), (index, bar.tabRect(index), bar.rect())
        # shortened at 800 px ("Me…"): its whole name on hover
        assert bar.tabToolTip(index) == window.center.tabText(index).replace("&", "")
        assert bar.tabToolTip(index)
    if window.projects.isVisible():
        assert window.projects.width() >= 180
    if window.details.isVisible():
        assert window.details.width() >= 280
    assert window.details.isVisible()  # the editor stays at 800 px


def test_the_projects_panel_steps_aside_when_narrow_and_comes_back(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService
) -> None:
    window = make_window(service, scope=fill_titled(service))
    sized(qtbot, window, 1920, 1000)
    assert window.projects.isVisible()
    toggle = window.side_panels.projects_button
    assert not toggle.isVisible()
    sized(qtbot, window, 800, 800)
    qtbot.waitUntil(lambda: not window.projects.isVisible())
    assert toggle.isVisible()  # a toggle next to the tabs brings it back
    assert window.ctx.scope.name in toggle.toolTip()
    toggle.click()
    qtbot.waitUntil(window.projects.isVisible)
    sized(qtbot, window, 1920, 1000)
    assert window.projects.isVisible()
    window.menu_actions.show_projects.trigger()  # hidden by the person: stays hidden
    sized(qtbot, window, 1280, 800)
    sized(qtbot, window, 1920, 1000)
    assert not window.projects.isVisible()


def test_the_editor_is_narrower_while_nothing_is_selected(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService
) -> None:
    window = make_window(service, scope=fill_titled(service))
    sized(qtbot, window, 1280, 800)
    assert not window.editor.memory_id
    empty = window.details.width()
    assert empty <= 340
    first = window.table.model.row_at(0).id
    window.table.select_memory(first)
    qtbot.waitUntil(lambda: window.editor.memory_id == first)
    qtbot.waitUntil(lambda: window.details.width() > empty + 40)


def test_a_title_s_tooltip_shows_it_whole(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService
) -> None:
    window = make_window(service, scope=fill_titled(service))
    model = window.table.model
    qtbot.waitUntil(lambda: model.rowCount() > 0)
    index = model.index(0, COL_TITLE)
    title = model.row_at(0).title
    assert str(index.data(Qt.ItemDataRole.ToolTipRole)).startswith(title)

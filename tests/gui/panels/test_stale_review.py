"""Stale review: a row opens in the editor, counts in the sidebar, undoable Keep, every project."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from ltm_desktop.core.records import GLOBAL_PROJECT_ID, Project
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.models.projects_model import COL_NAME, COL_STALE, distinct_labels
from ltm_desktop.gui.models.stale_model import COL_PROJECT
from ltm_desktop.gui.window.main_window import TAB_STALE
from tests.conftest import FakeClock
from tests.gui.conftest import WindowFactory, add


@pytest.mark.slow
def test_stale_rows_open_count_in_the_sidebar_and_keep_is_undoable(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str, clock: FakeClock
) -> None:
    dusty = add(service, billing, "Dusty trivia nobody needs", importance=1)
    add(service, billing, "Old trivia nobody needs", importance=1)
    other = service.resolve_scope(cwd="/home/dev/src/shop", register=True)
    far = add(service, other, "Shop trivia nobody reads", importance=1)
    clock.advance(days=61)
    window = make_window(service, scope=billing)
    projects = window.projects.model

    def stale_in_sidebar(project_id: str) -> str:
        return projects.index(projects.row_of(project_id), COL_STALE).data()

    qtbot.waitUntil(lambda: stale_in_sidebar(billing) == "2" and stale_in_sidebar(other) == "1")
    assert stale_in_sidebar(GLOBAL_PROJECT_ID) == ""
    window.center.setCurrentIndex(TAB_STALE)
    stale = window.stale
    qtbot.waitUntil(lambda: stale.model.rowCount() == 2)
    row = stale.model.row_of(dusty.id)
    stale.view.setCurrentIndex(stale.model.index(row, 0))  # a click on the row
    qtbot.waitUntil(lambda: window.editor.memory_id == dusty.id)

    stale.view.selectAll()
    stale.keep_button.click()
    qtbot.waitUntil(lambda: stale.model.rowCount() == 0)
    qtbot.waitUntil(lambda: stale_in_sidebar(billing) == "")
    assert window.ctx.undo.top_label().startswith("Keep")
    window.menu_actions.undo.trigger()
    qtbot.waitUntil(lambda: stale.model.rowCount() == 2)
    assert {m.id for m in service.stale.memories(billing)} >= {dusty.id}
    qtbot.waitUntil(lambda: stale_in_sidebar(billing) == "2")
    qtbot.waitUntil(window.menu_actions.redo.isEnabled)
    window.menu_actions.redo.trigger()  # and kept again
    qtbot.waitUntil(lambda: stale.model.rowCount() == 0)

    stale.everywhere.setChecked(True)
    qtbot.waitUntil(lambda: stale.model.rowCount() == 1)
    assert stale.model.row_at(0).id == far.id
    assert not stale.view.isColumnHidden(COL_PROJECT)
    assert stale.model.index(0, COL_PROJECT).data() == "shop"
    assert "in every project" in stale.summary.text()


def test_projects_of_the_same_name_show_where_they_are(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService
) -> None:
    work = service.resolve_scope(cwd="/home/me/work/app", register=True)
    home = service.resolve_scope(cwd="/home/me/personal/app", register=True)
    add(service, work, "Work app fact")
    add(service, home, "Personal app fact")
    window = make_window(service)
    projects = window.projects.model
    qtbot.waitUntil(lambda: projects.row_of(work) >= 0 and projects.row_of(home) >= 0)
    assert projects.index(projects.row_of(work), COL_NAME).data() == "app (work/app)"
    assert projects.index(projects.row_of(home), COL_NAME).data() == "app (personal/app)"
    labels = distinct_labels([Project("a", "/x/same/app", "app", 0), Project("b", None, "app", 0)])
    assert labels == {"a": "app (same/app)", "b": "app (b)"}

"""The lists at depth (memories, Trash, Activity, Observations): the whole list is there at
once, its rows arrive where the view is."""

from __future__ import annotations

from functools import partial

import pytest
from PySide6.QtCore import Qt
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from ltm_desktop.core.records import MemoryDraft
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.models.activity_model import COL_TITLE as ACTIVITY_TITLE
from ltm_desktop.gui.models.activity_model import ActivityModel
from ltm_desktop.gui.models.memory_model import COL_TITLE, MemoryQuery, MemoryTableModel
from ltm_desktop.gui.models.observation_model import ObservationModel
from ltm_desktop.gui.models.sparse import PLACEHOLDER, SparseTableModel
from ltm_desktop.gui.tasks import TaskRunner
from ltm_desktop.gui.window.main_window import TAB_ACTIVITY, TAB_OBSERVATIONS, MainWindow
from tests.gui.conftest import WindowFactory, add

MEMORIES = 3_000


def fill(service: MemoryService, project: str, count: int = MEMORIES) -> None:
    drafts = [
        MemoryDraft(f"Generated memory {i} about component {i % 97}", importance=1 + i % 9)
        for i in range(count)
    ]
    service.import_memories(project, drafts, "bench")


def reads_the_last_page_alone(
    qtbot: QtBot, model: SparseTableModel, rows: int, last_page: int, column: int = 0
) -> None:
    """The count is there from the first answer with only page 0 read; the last row shows
    a placeholder, which asks for its page, and that page alone is read."""
    assert model.rowCount() == model.total == rows
    assert model.cached_pages() == [0]
    assert model.index(rows - 1, column).data() == PLACEHOLDER  # and asks for its page
    qtbot.waitUntil(lambda: model.row_at(rows - 1) is not None)
    assert model.cached_pages() == [0, last_page]  # nothing in between was read


def ids_at(service: MemoryService, project: str, offset: int, limit: int) -> list[str]:
    """What the store says is at ``offset`` in the list's default order."""
    query = MemoryQuery(project_id=project).list_query(offset, limit)
    return [m.id for m in service.list_memories(project, query)]


@pytest.mark.slow
def test_a_page_far_down_is_read_on_demand_and_memory_stays_bounded(
    qtbot: QtBot,
    qtmodeltester: ModelTester,
    service: MemoryService,
    billing: str,
    runner: TaskRunner,
) -> None:
    fill(service, billing)
    model = MemoryTableModel(service, runner, page_size=100, max_pages=4)
    model.set_query(MemoryQuery(project_id=billing))
    qtbot.waitUntil(model.is_settled)
    reads_the_last_page_alone(qtbot, model, MEMORIES, 29, COL_TITLE)
    tail = [model.row_at(r).id for r in range(MEMORIES - 100, MEMORIES)]
    assert tail == ids_at(service, billing, MEMORIES - 100, 100)
    qtmodeltester.check(model)
    for row in range(0, MEMORIES, 300):  # scroll through the whole list
        model.index(row, COL_TITLE).data()
        qtbot.waitUntil(partial(read, model, row))
        assert len(model.cached_pages()) <= 4  # old pages go: memory stays flat
    assert model.index(MEMORIES - 1, COL_TITLE).data() == PLACEHOLDER  # evicted, asked again
    qtbot.waitUntil(lambda: model.row_at(MEMORIES - 1) is not None)


def read(model: MemoryTableModel, row: int) -> bool:
    return model.row_at(row) is not None


def jump_to_end(qtbot: QtBot, window: MainWindow) -> str:
    """End in the list; returns the id of the last memory, once it is current and selected."""
    view = window.table.list_view
    last = ids_at(window.ctx.service, window.ctx.scope.project_id, MEMORIES - 1, 1)[0]
    window.table.focus_results()  # the list takes the keys, its first row current
    assert view.currentIndex().row() == 0
    qtbot.keyClick(view, Qt.Key.Key_End)
    qtbot.waitUntil(lambda: window.table.current_id() == last)
    return last


def test_ctrl_end_and_the_scroll_bar_show_the_last_rows(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    fill(service, billing)
    window = make_window(service, scope=billing)
    table, view = window.table, window.table.list_view
    assert table.model.rowCount() == MEMORIES
    last = jump_to_end(qtbot, window)
    assert view.currentIndex().row() == MEMORIES - 1
    assert table.selected_ids() == [last]
    qtbot.waitUntil(lambda: window.editor.memory_id == last)  # the editor shows it
    bottom = view.rowAt(view.viewport().height() - 1)
    assert bottom in (MEMORIES - 1, -1)  # scrolled to the end (-1: blank below the last)
    assert 0 < table.model.cached_pages()[-1] == (MEMORIES - 1) // 200

    qtbot.keyClick(view, Qt.Key.Key_Home)
    qtbot.waitUntil(lambda: view.rowAt(0) == 0 and view.currentIndex().row() == 0)
    qtbot.keyClick(view, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)  # moves, no select
    qtbot.waitUntil(lambda: table.model.row_at(MEMORIES - 1) is not None)
    assert view.currentIndex().row() == MEMORIES - 1
    shown_title = view.currentIndex().siblingAtColumn(COL_TITLE).data()
    assert shown_title == table.model.row_at(MEMORIES - 1).title

    view.scrollToTop()
    qtbot.waitUntil(lambda: view.rowAt(0) == 0)
    bar = view.verticalScrollBar()
    bar.setValue(bar.maximum())  # dragging the scroll bar to the bottom
    shown = view.rowAt(view.viewport().height() // 2)
    qtbot.waitUntil(lambda: table.model.row_at(shown) is not None and table.model.is_settled())
    assert table.model.index(shown, COL_TITLE).data() != PLACEHOLDER
    assert table.model.row_at(shown).id == ids_at(service, billing, shown, 1)[0]


@pytest.mark.slow
def test_a_live_write_while_scrolled_far_down_keeps_the_place_and_the_selection(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    fill(service, billing)
    window = make_window(service, scope=billing)
    table, view, model = window.table, window.table.list_view, window.table.model
    last = jump_to_end(qtbot, window)
    top = view.rowAt(0)
    qtbot.waitUntil(lambda: model.row_at(top) is not None and model.is_settled())
    top_id, top_y = model.row_at(top).id, view.rowViewportPosition(top)

    fresh = add(service, billing, "A fresh fact an agent just wrote", importance=10)  # sorts first
    qtbot.waitUntil(lambda: model.rowCount() == MEMORIES + 1 and model.is_settled(), timeout=5000)
    assert table.current_id() == last
    assert table.selected_ids() == [last]
    assert view.currentIndex().row() == MEMORIES == model.row_of(last)  # one row further down
    shifted = model.row_of(top_id)
    assert shifted == top + 1
    assert view.rowViewportPosition(shifted) == top_y
    assert table.count_label.text().startswith("3,001")

    view.scrollToTop()
    qtbot.waitUntil(lambda: model.row_at(0) is not None and model.row_at(0).id == fresh.id)
    service.remove(last, "agent")  # and a row going away far down
    qtbot.waitUntil(lambda: model.rowCount() == MEMORIES and model.is_settled(), timeout=5000)
    assert model.row_of(last) == -1
    assert table.selected_ids() == []


def test_select_all_is_the_whole_list_without_walking_its_rows(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    """Ctrl+A holds every memory of the list (a query the core resolves), not the rows read
    so far; the view keeps one range, and no placeholder names a memory."""
    fill(service, billing)
    window = make_window(service, scope=billing)
    table, view, model = window.table, window.table.list_view, window.table.model
    loaded = [r.id for r in model.rows()]
    assert 0 < len(loaded) < MEMORIES
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: table.selected_count() == MEMORIES)
    assert table.whole.active
    assert view.selectionModel().selection().size() == 1  # one range, no index per row
    target = table.selection_target()
    assert not isinstance(target, dict)
    assert target.project_id == billing
    assert target.excluded == frozenset()


def test_the_trash_is_random_access_too(
    qtbot: QtBot,
    qtmodeltester: ModelTester,
    service: MemoryService,
    billing: str,
    runner: TaskRunner,
) -> None:
    """The Trash's count is there at once and its last page is read alone, as in the list."""
    from ltm_desktop.gui.models.trash_model import COL_TITLE as TRASH_TITLE
    from ltm_desktop.gui.models.trash_model import TrashModel

    fill(service, billing, 600)
    for memory in service.list_memories(billing, MemoryQuery().list_query(0, 600)):
        service.remove(memory.id, "gui")
    model = TrashModel(service, runner, page_size=50, max_pages=3)
    model.set_project(billing)
    qtbot.waitUntil(model.is_settled)
    reads_the_last_page_alone(qtbot, model, 600, 11, TRASH_TITLE)
    qtmodeltester.check(model)


def observe(service: MemoryService, project: str, count: int, per_session: int = 100) -> None:
    """``count`` observations, oldest first: "Question 0" in sess-0, 100 to a session."""
    for i in range(count):
        session = f"sess-{i // per_session}"
        service.observations.record(
            project,
            "agent_end",
            session,
            "claude-code",
            user_text=f"Question {i}",
            assistant_text="ok",
        )


def test_the_activity_is_random_access_too(
    qtbot: QtBot,
    qtmodeltester: ModelTester,
    service: MemoryService,
    billing: str,
    runner: TaskRunner,
) -> None:
    """The Activity's count is there at once and its last page is read alone, as in the list;
    an actor's events are counted and paged by the store, not by scanning everyone's."""
    add(service, billing, "The very first fact", actor="claude-code")
    fill(service, billing, 600)
    events = service.history.count_project(billing)
    assert events == 601
    model = ActivityModel(service, runner, page_size=50, max_pages=3)
    model.set_filter(billing, None)
    qtbot.waitUntil(model.is_settled)
    reads_the_last_page_alone(qtbot, model, events, 12)
    assert model.row_at(600).title == "The very first fact"  # the oldest event is the last row
    assert model.actors() == ["bench", "claude-code"]  # though the first page shows only bench
    qtmodeltester.check(model)
    model.set_filter(billing, "claude-code")
    qtbot.waitUntil(model.is_settled)
    assert model.rowCount() == 1
    assert model.row_at(0).title == "The very first fact"


def test_the_observations_are_random_access_too(
    qtbot: QtBot,
    qtmodeltester: ModelTester,
    service: MemoryService,
    billing: str,
    runner: TaskRunner,
) -> None:
    """The Observations' count is there at once and their last page is read alone; a
    session's are counted and paged by the store, not filtered out of everyone's."""
    observe(service, billing, 600)
    model = ObservationModel(service, runner, page_size=50, max_pages=3)
    model.set_filter(billing, None, "")
    qtbot.waitUntil(model.is_settled)
    reads_the_last_page_alone(qtbot, model, 600, 11)
    assert model.row_at(599).observation.title == "Question 0"  # oldest last
    qtmodeltester.check(model)
    model.set_filter(billing, "sess-0", "")  # the oldest session: 500 rows down before
    qtbot.waitUntil(model.is_settled)
    assert model.rowCount() == 100
    assert model.cached_pages() == [0]
    assert {r.observation.session_id for r in model.rows()} == {"sess-0"}
    model.set_filter(billing, "sess-0", "Question")  # a search keeps to the session
    qtbot.waitUntil(model.is_settled)
    assert model.rowCount() > 0
    assert {r.observation.session_id for r in model.rows()} == {"sess-0"}


def test_the_activity_tab_reaches_its_oldest_event_and_follows_live_writes(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    first = add(service, billing, "The very first fact", actor="claude-code")
    fill(service, billing, 600)
    window = make_window(service, scope=billing)
    window.center.setCurrentIndex(TAB_ACTIVITY)
    panel, view, model = window.activity, window.activity.view, window.activity.model
    qtbot.waitUntil(lambda: model.rowCount() == 601 and model.is_settled())
    assert panel.actor.findData("claude-code") > 0  # its one event is 600 rows down
    view.setFocus()
    view.setCurrentIndex(model.index(0, 0))
    qtbot.keyClick(view, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)  # to the last row
    qtbot.waitUntil(lambda: model.row_at(600) is not None and view.currentIndex().row() == 600)
    assert view.currentIndex().siblingAtColumn(ACTIVITY_TITLE).data() == "The very first fact"
    assert 1 not in model.cached_pages()  # nothing in between was read
    oldest = model.row_at(600).seq

    add(service, billing, "A fresh fact from another agent", actor="codex")  # live, on top
    qtbot.waitUntil(lambda: model.rowCount() == 602 and model.is_settled(), timeout=5000)
    assert view.currentIndex().row() == 601 == model.row_of(oldest)  # still on the same event
    assert panel.actor.findData("codex") > 0
    panel.on_activated(view.currentIndex())  # what a double-click does
    qtbot.waitUntil(lambda: window.editor.memory_id == first.id)

    window.center.setCurrentIndex(TAB_ACTIVITY)
    panel.actor.setCurrentIndex(panel.actor.findData("claude-code"))
    qtbot.waitUntil(lambda: model.rowCount() == 1 and model.is_settled())
    assert model.row_at(0).title == "The very first fact"


def test_the_observations_tab_reaches_its_oldest_and_shows_it(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    observe(service, billing, 600)
    window = make_window(service, scope=billing)
    window.center.setCurrentIndex(TAB_OBSERVATIONS)
    panel, view, model = window.observations, window.observations.view, window.observations.model
    qtbot.waitUntil(lambda: model.rowCount() == 600 and model.is_settled())
    # every session is offered, though the oldest one's rows are 500 rows down, unread
    qtbot.waitUntil(lambda: panel.session.findData("sess-0") > 0)
    assert model.cached_pages() == [0]
    view.setFocus()
    view.setCurrentIndex(model.index(0, 0))
    qtbot.keyClick(view, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)  # to the last row
    qtbot.waitUntil(lambda: "Question 0" in panel.detail.toPlainText())  # its page came in
    assert view.currentIndex().row() == 599
    assert 1 not in model.cached_pages()
    assert panel.session.findData("sess-0") > 0

    qtbot.waitUntil(lambda: panel.newest_seen is not None)
    service.observations.record(
        billing, "agent_end", "sess-9", "codex", user_text="Later", assistant_text="ok"
    )
    panel.on_poll_due()  # what the panel's timer does every two seconds
    qtbot.waitUntil(lambda: model.rowCount() == 601 and model.is_settled(), timeout=5000)
    assert view.currentIndex().row() == 600  # still on the oldest
    assert "Question 0" in panel.detail.toPlainText()
    qtbot.waitUntil(lambda: panel.session.itemData(1) == "sess-9")  # the one active last first

    panel.session.setCurrentIndex(panel.session.findData("sess-0"))
    qtbot.waitUntil(lambda: model.rowCount() == 100 and model.is_settled())
    assert {r.observation.session_id for r in model.rows()} == {"sess-0"}

"""The window around the lists: status bar, dialogs, settings, history, activity, observations, keys."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QItemSelectionModel, QSettings
from PySide6.QtGui import QGuiApplication, QKeySequence
from PySide6.QtWidgets import QAbstractItemView, QLabel
from pytestqt.qtbot import QtBot

from ltm_desktop import __version__
from ltm_desktop.core.records import GLOBAL_PROJECT_ID
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.memory_list.memory_table import PAGE_EMPTY
from ltm_desktop.gui.window.main_window import (
    TAB_ACTIVITY,
    TAB_HISTORY,
    TAB_OBSERVATIONS,
    MainWindow,
)
from tests.gui.conftest import AutoPrompter, FakeApi, WindowFactory, add


@pytest.mark.slow
def test_status_bar_follows_the_api(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService
) -> None:
    api = FakeApi(clients=2, action="claude-code: memory.add")
    window = make_window(service, api=api)
    status = window.status
    assert status.api_label.text() == "API: unix:/run/user/1000/ltm-desktop/ltm.sock"
    assert status.agents_label.text() == "2 agents connected"
    assert status.last_label.text() == "Last: claude-code: memory.add"
    api.clients, api.action = 1, "codex: memory.search"
    qtbot.waitUntil(lambda: status.agents_label.text() == "1 agent connected", timeout=3000)
    assert status.last_label.text() == "Last: codex: memory.search"
    api.http_endpoint = "http:127.0.0.1:8765"  # [http] listen: the port picked is shown
    qtbot.waitUntil(lambda: "http:127.0.0.1:8765" in status.api_label.text(), timeout=3000)
    assert status.api_label.text() == (
        "API: unix:/run/user/1000/ltm-desktop/ltm.sock  http:127.0.0.1:8765"
    )
    api.endpoint, api.error = None, "another ltm-desktop serves this data dir"
    qtbot.waitUntil(lambda: "not running" in status.api_label.text(), timeout=3000)
    assert (
        status.api_label.text() == "Agent API not running: another ltm-desktop serves this data dir"
    )


def test_the_first_window_fits_the_screen(
    make_window: WindowFactory, service: MemoryService
) -> None:
    """No saved geometry: 1440 x 860 where there is room, within the screen where not."""
    window = make_window(service)
    room = window.screen().availableGeometry().size()
    assert 0 < window.width() <= min(1440, room.width())
    assert 0 < window.height() <= min(860, room.height())


def test_works_without_an_api(make_window: WindowFactory, service: MemoryService) -> None:
    window = make_window(service, api=None)
    assert "not started" in window.status.api_label.text()


def test_first_launch_explains_how_to_connect(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService
) -> None:
    window = make_window(service)
    qtbot.waitUntil(lambda: window.table.stack.currentIndex() == PAGE_EMPTY)
    label = window.table.empty.label
    assert "Welcome" in label.text()
    qtbot.waitUntil(lambda: label.height() >= label.heightForWidth(label.width()))  # not clipped
    window.table.empty.connect_button.click()
    dialogs = [d for d in window.findChildren(type(window.show_connect())) if d.isVisible()]
    assert dialogs


def test_connect_dialog_has_copyable_snippets(
    make_window: WindowFactory, service: MemoryService
) -> None:
    window = make_window(service, api=FakeApi())
    dialog = window.show_connect()
    texts = [box.toPlainText() for box in dialog.boxes]
    assert any("from ltm_desktop.api.client import Client" in t for t in texts)
    assert any(
        "call --socket /run/user/1000/ltm-desktop/ltm.sock memory.search" in t for t in texts
    )
    assert any("UNIX-CONNECT:/run/user/1000/ltm-desktop/ltm.sock" in t for t in texts)
    dialog.copy_buttons[2].click()
    assert QGuiApplication.clipboard().text() == texts[2]
    dialog.close()


def test_about_dialog(make_window: WindowFactory, service: MemoryService) -> None:
    window = make_window(service)
    dialog = window.show_about()
    text = " ".join(label.text() for label in dialog.findChildren(QLabel))
    assert __version__ in text
    assert service.store.location in text
    assert str(service.paths.data_dir) in text
    dialog.close()


def test_settings_remember_scope_and_layout(
    qtbot: QtBot,
    make_window: WindowFactory,
    service: MemoryService,
    billing: str,
    gui_settings: QSettings,
) -> None:
    add(service, billing, "Something")
    window = make_window(service)
    window.projects.select(billing)
    qtbot.waitUntil(lambda: window.ctx.scope.project_id == billing)
    window.menu_actions.show_projects.trigger()  # the offscreen screen is 800 px wide:
    window.splitter.setSizes([0, 440, 340])  # room for the details pane to keep a width
    sizes = window.splitter.sizes()
    size = window.size()
    window.close()
    assert gui_settings.value("scope") == billing
    again = make_window(service)
    qtbot.waitUntil(lambda: again.ctx.scope.project_id == billing)
    assert gui_settings.contains("geometry")
    # the offscreen screen may clamp the restored window; the details pane keeps its width
    assert again.splitter.sizes()[2] == sizes[2]
    assert not again.projects.isVisible()
    assert again.size().width() <= size.width()


def test_standard_shortcuts(make_window: WindowFactory, service: MemoryService) -> None:
    a = make_window(service).menu_actions
    for action, key in (
        (a.new_memory, QKeySequence.StandardKey.New),
        (a.save, QKeySequence.StandardKey.Save),
        (a.undo, QKeySequence.StandardKey.Undo),
        (a.find, QKeySequence.StandardKey.Find),
        (a.delete, QKeySequence.StandardKey.Delete),
        (a.refresh, QKeySequence.StandardKey.Refresh),
    ):
        assert action.shortcut() == QKeySequence(key)
    assert all(not act.shortcut().isEmpty() or act.menu() is None for act in a.all())


def test_closing_with_unsaved_edits_asks(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    memory = add(service, billing, "Editable")
    window = make_window(service, scope=billing)
    qtbot.waitUntil(lambda: window.table.select_memory(memory.id))
    qtbot.waitUntil(lambda: window.editor.memory_id == memory.id)
    window.editor.form.content.setPlainText("Edited but not saved")
    prompter = AutoPrompter("cancel")
    window.ctx.prompter = prompter
    window.close()
    assert prompter.asked
    assert window.isVisible()
    prompter.answer = "save"
    window.close()
    qtbot.waitUntil(lambda: service.get(memory.id).content == "Edited but not saved")


def select_row(window: MainWindow, view: QAbstractItemView, row: int) -> None:
    flags = QItemSelectionModel.SelectionFlag
    view.selectionModel().setCurrentIndex(
        view.model().index(row, 0), flags.ClearAndSelect | flags.Rows
    )


def test_history_shows_a_diff_and_reverts(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    memory = add(service, billing, "The API listens on port 8000", title="API port", importance=5)
    service.update(
        memory.id, {"content": "The API listens on port 9000", "importance": 7}, "claude-code"
    )
    window = make_window(service, scope=billing)
    window.details.setCurrentIndex(TAB_HISTORY)
    qtbot.waitUntil(lambda: window.table.select_memory(memory.id))
    history = window.history
    qtbot.waitUntil(lambda: history.model.rowCount() == 2)
    assert [e.actor for e in history.model.rows()] == ["agent", "claude-code"]
    html = history.diff.toHtml()
    assert "8000" in html and "9000" in html  # noqa: PT018 - both sides of the diff
    assert "5" in history.diff.toPlainText() and "7" in history.diff.toPlainText()  # noqa: PT018
    assert history.revert_button.isEnabled()
    history.revert_button.click()
    qtbot.waitUntil(lambda: service.get(memory.id).content == "The API listens on port 8000")
    assert service.get(memory.id).importance == 5
    assert service.history.memory(memory.id)[-1].actor == "gui"
    qtbot.waitUntil(lambda: history.model.rowCount() == 3)


def test_activity_log_filters_by_actor_and_opens_memories(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    mine = add(service, billing, "Written by me", actor="gui")
    add(service, billing, "Written by the agent", actor="claude-code")
    window = make_window(service, scope=billing)
    window.center.setCurrentIndex(TAB_ACTIVITY)
    activity = window.activity
    qtbot.waitUntil(lambda: activity.model.rowCount() == 2)
    assert activity.model.rows()[0].title == "Written by the agent"  # newest first
    index = activity.actor.findData("claude-code")
    assert index > 0
    activity.actor.setCurrentIndex(index)
    qtbot.waitUntil(lambda: activity.model.rowCount() == 1 and activity.model.is_settled())
    activity.actor.setCurrentIndex(activity.actor.findData("gui"))
    qtbot.waitUntil(
        lambda: activity.model.rowCount() == 1 and activity.model.rows()[0].title == "Written by me"
    )
    activity.on_activated(activity.model.index(0, 0))
    qtbot.waitUntil(lambda: window.editor.memory_id == mine.id)


def test_observations_by_session_and_search(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    service.observations.record(
        billing,
        "agent_end",
        "sess-a",
        "claude-code",
        user_text="Fix the flaky test",
        assistant_text="Pinned the clock",
    )
    service.observations.record(
        billing,
        "pre_compact",
        "sess-b",
        "claude-code",
        messages_text="Long transcript about invoices",
    )
    window = make_window(service, scope=billing)
    window.center.setCurrentIndex(TAB_OBSERVATIONS)
    panel = window.observations
    qtbot.waitUntil(lambda: panel.model.rowCount() == 2)
    assert panel.session.findData("sess-a") > 0
    panel.session.setCurrentIndex(panel.session.findData("sess-a"))
    qtbot.waitUntil(lambda: panel.model.rowCount() == 1 and panel.model.is_settled())
    select_row(window, panel.view, 0)
    assert "Pinned the clock" in panel.detail.toPlainText()
    panel.session.setCurrentIndex(0)
    panel.search.setText("invoices")
    qtbot.waitUntil(
        lambda: (
            panel.model.rowCount() == 1 and panel.model.rows()[0].observation.session_id == "sess-b"
        )
    )
    qtbot.waitUntil(lambda: panel.newest_seen is not None)
    service.observations.record(
        billing, "agent_end", "sess-c", "codex", user_text="invoices again", assistant_text="ok"
    )
    panel.on_poll_due()  # what the panel's timer does every two seconds
    qtbot.waitUntil(lambda: panel.model.rowCount() == 2, timeout=5000)


def test_the_chosen_session_stays_chosen_as_sessions_arrive_and_resets_with_the_scope(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    for session in ("sess-a", "sess-b"):
        service.observations.record(
            billing, "agent_end", session, "codex", user_text=f"In {session}"
        )
    window = make_window(service, scope=billing)
    window.center.setCurrentIndex(TAB_OBSERVATIONS)
    panel = window.observations
    qtbot.waitUntil(lambda: panel.session.findData("sess-a") > 0)
    panel.session.setCurrentIndex(panel.session.findData("sess-a"))
    qtbot.waitUntil(lambda: panel.model.rowCount() == 1 and panel.model.is_settled())
    qtbot.waitUntil(lambda: panel.newest_seen is not None)

    service.observations.record(billing, "agent_end", "sess-c", "codex", user_text="A new session")
    panel.on_poll_due()  # what the panel's timer does every two seconds
    qtbot.waitUntil(lambda: panel.session.itemData(1) == "sess-c")  # the one active last first
    assert panel.session.currentData() == "sess-a"
    assert [r.observation.session_id for r in panel.model.rows()] == ["sess-a"]

    window.projects.select(GLOBAL_PROJECT_ID)
    qtbot.waitUntil(lambda: panel.session.count() == 1 and panel.session.currentIndex() == 0)
    window.projects.select(billing)
    qtbot.waitUntil(lambda: panel.session.count() == 4 and panel.model.rowCount() == 3)
    assert panel.session.currentData() is None  # all sessions, in the scope shown again


def test_scope_switch_scopes_every_view(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    add(service, billing, "Project memory")
    add(service, GLOBAL_PROJECT_ID, "Global preference")
    window = make_window(service, scope=GLOBAL_PROJECT_ID)
    qtbot.waitUntil(lambda: [r.title for r in window.table.model.rows()] == ["Global preference"])
    window.projects.filter.setText("billing")
    window.projects.select(billing)
    qtbot.waitUntil(lambda: [r.title for r in window.table.model.rows()] == ["Project memory"])
    assert window.projects.model.rowCount() == 2
    tooltip = window.projects.model.index(window.projects.model.row_of(billing), 0).data(3)
    assert tooltip == "/home/dev/src/billing-api"


def test_removed_and_expired_toggles_show_them_marked(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str, clock: object
) -> None:
    from PySide6.QtCore import Qt

    from tests.gui.conftest import add

    kept = add(service, billing, "Kept memory stays visible")
    gone = add(service, billing, "Removed memory about queues")
    service.remove(gone.id, "gui")
    late = add(service, billing, "Expiring memory about tokens", ttl_days=1)
    clock.advance(days=2)  # type: ignore[attr-defined]
    window = make_window(service, scope=billing)
    table = window.table
    qtbot.waitUntil(lambda: table.model.row_of(kept.id) >= 0)
    assert table.model.row_of(gone.id) < 0
    assert table.model.row_of(late.id) < 0
    table.show_removed.setChecked(True)
    table.show_expired.setChecked(True)
    qtbot.waitUntil(lambda: table.model.row_of(gone.id) >= 0 and table.model.row_of(late.id) >= 0)
    model = table.model
    removed_index = model.index(model.row_of(gone.id), 0)
    expired_index = model.index(model.row_of(late.id), 0)
    assert model.data(removed_index).endswith("[removed]")
    assert model.data(removed_index, Qt.ItemDataRole.FontRole).strikeOut()
    assert model.data(expired_index).endswith("[expired]")
    assert model.data(expired_index, Qt.ItemDataRole.FontRole).italic()


def test_filtering_projects_then_clicking_one_switches_scope(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    from PySide6.QtCore import QItemSelectionModel

    from tests.gui.conftest import add

    other = service.resolve_scope(cwd="/home/dev/src/zebra-shop", register=True)
    add(service, billing, "Billing fact")
    add(service, other, "Zebra fact")
    window = make_window(service, scope=billing)
    panel = window.projects
    qtbot.waitUntil(lambda: panel.model.row_of(other) >= 0)
    panel.filter.setText("zebra")  # the current scope (billing) is filtered out
    qtbot.waitUntil(lambda: panel.model.row_of(billing) < 0)
    row = panel.model.row_of(other)
    flags = QItemSelectionModel.SelectionFlag
    panel.view.selectionModel().setCurrentIndex(
        panel.model.index(row, 0), flags.ClearAndSelect | flags.Rows
    )  # the click
    qtbot.waitUntil(lambda: window.ctx.scope.project_id == other)


def test_column_widths_are_remembered_and_bad_saved_widths_ignored(
    qtbot: QtBot,
    make_window: WindowFactory,
    service: MemoryService,
    billing: str,
    gui_settings: QSettings,
) -> None:
    add(service, billing, "Something")
    window = make_window(service)
    qtbot.waitUntil(window.is_idle)
    window.table.list_view.setColumnWidth(1, 140)  # Category
    window.trash.view.setColumnWidth(2, 333)  # Why
    window.close()
    again = make_window(service)
    qtbot.waitUntil(again.is_idle)
    assert again.table.list_view.columnWidth(1) == 140
    assert again.trash.view.columnWidth(2) == 333
    again.close()

    gui_settings.setValue("columns/memories", ["wide", -5, None, 99999])
    gui_settings.setValue("columns/trash", ["x", "x", "250"])
    gui_settings.setValue("columns/stale", {"not": "a list"})
    gui_settings.setValue("columns/activity", "260")  # how INI reads back a one-item list
    third = make_window(service)
    qtbot.waitUntil(third.is_idle)
    assert third.table.list_view.columnWidth(1) == 86  # the default, not garbage
    assert third.table.list_view.columnWidth(3) == 116
    assert third.trash.view.columnWidth(2) == 250
    assert third.activity.view.columnWidth(0) == 260


def test_the_lists_fit_their_tab_without_scrolling_sideways(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService
) -> None:
    """Each list's title column takes the room left, as the memory list's does: at the
    first window's size no tab scrolls sideways to show its last column."""
    project = service.resolve_scope(cwd="/src/shop", register=True)
    add(service, project, "A memory with a long title to list in every tab", title="T " * 40)
    service.observations.record(
        project, "agent_end", "s1", "agent", user_text="Up?", assistant_text="Well."
    )
    window = make_window(service, scope=project)
    window.resize(1250, 750)
    views = (
        window.trash.view,
        window.stale.view,
        window.observations.view,
        window.activity.view,
        window.inbox.view,
    )
    for index, view in enumerate(views, 1):
        window.center.setCurrentIndex(index)
        qtbot.waitUntil(view.isVisible)
        header = view.horizontalHeader()
        qtbot.waitUntil(lambda: header.length() <= view.viewport().width())  # noqa: B023
        assert view.horizontalScrollBar().maximum() == 0, index

"""Select all in the memory list is every memory the list shows (its whole filtered scope,
read or not), and every bulk action acts on all of it: remove, restore, set fields, move,
copy; in chunks on a worker, with progress and a Cancel, undone in one step."""

from __future__ import annotations

import gc
import hashlib
import threading
from collections.abc import Sequence
from functools import partial
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from pytestqt.qtbot import QtBot

from ltm_desktop.core.bulk.rules import BulkResult, Change
from ltm_desktop.core.records import ListQuery, Memory, MemoryDraft
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui import ops
from ltm_desktop.gui.editing.bulk_curation import BulkEditDialog
from ltm_desktop.gui.memory_list import memory_table
from ltm_desktop.gui.models.memory_model import MemoryTableModel
from ltm_desktop.gui.window.main_window import MainWindow
from tests.gui.conftest import WindowFactory, wait_idle

MEMORIES = 1_200  # the list reads pages of 100 and keeps 4: most rows are never read
OTHER = "/home/dev/src/other-service"


@pytest.fixture
def small_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        memory_table, "MemoryTableModel", partial(MemoryTableModel, page_size=100, max_pages=4)
    )


def fill(
    service: MemoryService, project: str, count: int, what: str = "Fact", **draft: Any
) -> list[Memory]:
    drafts = [MemoryDraft(f"{what} {i}: {words(i)}", **draft) for i in range(count)]
    return service.import_memories(project, drafts, "agent")


def words(i: int) -> str:
    """Words no other memory of the fill shares (near-duplicates would supersede each other)."""
    return " ".join(hashlib.sha1(f"{i}-{k}".encode()).hexdigest()[:8] for k in range(6))


def active(service: MemoryService, project: str) -> int:
    return service.count_memories(project)


def in_trash(service: MemoryService, project: str) -> int:
    return service.count_memories(project, ListQuery(only_disabled=True, include_expired=True))


@pytest.fixture
def big_window(
    small_pages: None,
    qtbot: QtBot,
    make_window: WindowFactory,
    service: MemoryService,
    billing: str,
) -> MainWindow:
    fill(service, billing, MEMORIES)
    window = make_window(service, scope=billing)
    qtbot.waitUntil(lambda: window.table.model.total == MEMORIES)
    assert len(window.table.model.rows()) < MEMORIES  # not every row is read
    window.table.list_view.setFocus()
    return window


def ctrl_a(qtbot: QtBot, window: MainWindow) -> None:
    qtbot.keyClick(window.table.list_view, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)


def undo(qtbot: QtBot, window: MainWindow) -> None:
    qtbot.keyClick(window.table.list_view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)


def test_ctrl_a_then_delete_moves_every_memory_of_the_scope_and_ctrl_z_brings_all_back(
    qtbot: QtBot, big_window: MainWindow, service: MemoryService, billing: str
) -> None:
    window = big_window
    ctrl_a(qtbot, window)
    qtbot.keyClick(window.table.list_view, Qt.Key.Key_Delete)
    qtbot.waitUntil(lambda: window.ctx.undo.top_label() != "", timeout=20_000)
    wait_idle(qtbot, window, 20_000)
    assert in_trash(service, billing) == MEMORIES, "Delete after Ctrl+A left memories behind"
    assert active(service, billing) == 0
    assert window.ctx.undo.top_label() == f"Delete {MEMORIES:,} memories"
    assert window.status.currentMessage().endswith("Ctrl+Z undoes it.")
    undo(qtbot, window)
    qtbot.waitUntil(lambda: active(service, billing) == MEMORIES, timeout=20_000)
    assert in_trash(service, billing) == 0
    wait_idle(qtbot, window, 20_000)
    # the undone action went to the redo stack: the hint names the key that takes it back
    assert window.status.currentMessage().endswith("Ctrl+Shift+Z redoes it.")


def test_the_status_bar_says_how_many_are_selected(qtbot: QtBot, big_window: MainWindow) -> None:
    window = big_window
    ctrl_a(qtbot, window)
    qtbot.waitUntil(lambda: window.status.selection_label.text() == f"{MEMORIES:,} selected")
    assert window.table.selected_count() == MEMORIES


def test_home_shift_end_selects_the_whole_list_too(
    qtbot: QtBot, big_window: MainWindow, service: MemoryService, billing: str
) -> None:
    window, view = big_window, big_window.table.list_view
    qtbot.keyClick(view, Qt.Key.Key_Home)
    qtbot.keyClick(view, Qt.Key.Key_End, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClick(view, Qt.Key.Key_Delete)
    qtbot.waitUntil(lambda: in_trash(service, billing) > 0, timeout=20_000)
    wait_idle(qtbot, window, 20_000)
    assert in_trash(service, billing) == MEMORIES


def test_bulk_set_fields_on_select_all_changes_every_memory_in_one_undo_step(
    qtbot: QtBot, big_window: MainWindow, service: MemoryService, billing: str
) -> None:
    window = big_window
    ctrl_a(qtbot, window)
    window.menu_actions.bulk_edit.trigger()
    dialog = window.bulk.dialog
    assert isinstance(dialog, BulkEditDialog)
    assert f"Set on {MEMORIES:,}" in dialog.buttons.buttons()[0].text()
    dialog.ticks["importance"].setChecked(True)
    dialog.importance.setValue(9)
    dialog.on_ok()
    nine = ListQuery(limit=10_000)
    qtbot.waitUntil(
        lambda: all(m.importance == 9 for m in service.list_memories(billing, nine)),
        timeout=20_000,
    )
    wait_idle(qtbot, window, 20_000)
    assert window.ctx.undo.top_label() == f"Set importance for {MEMORIES:,} memories"
    assert len(window.ctx.undo) == 1
    window.menu_actions.undo.trigger()
    qtbot.waitUntil(
        lambda: all(m.importance == 0 for m in service.list_memories(billing, nine)),
        timeout=20_000,
    )


@pytest.mark.slow
def test_move_to_another_scope_moves_every_memory(
    qtbot: QtBot, big_window: MainWindow, service: MemoryService, billing: str
) -> None:
    window = big_window
    other = service.resolve_scope(cwd=OTHER, register=True)
    service.add(other, MemoryDraft("Already there"), "agent")
    window.projects.reload()
    qtbot.waitUntil(lambda: window.projects.model.project(other) is not None)
    ctrl_a(qtbot, window)
    dialog = window.bulk.transfer_selected(copy=False)
    assert dialog is not None
    dialog.scope.setCurrentIndex(dialog.scope.findData(other))
    dialog.accept()
    qtbot.waitUntil(lambda: active(service, billing) == 0, timeout=30_000)
    wait_idle(qtbot, window, 20_000)
    assert active(service, other) == MEMORIES + 1
    window.menu_actions.undo.trigger()
    wait_idle(qtbot, window, 30_000)
    qtbot.waitUntil(lambda: active(service, billing) == MEMORIES, timeout=30_000)
    qtbot.waitUntil(lambda: active(service, other) == 1, timeout=30_000)


def test_a_filter_narrows_select_all_to_what_the_list_shows(
    qtbot: QtBot,
    small_pages: None,
    make_window: WindowFactory,
    service: MemoryService,
    billing: str,
) -> None:
    fill(service, billing, 700, category="skill")
    fill(service, billing, 300, "Lesson", category="knowledge")
    window = make_window(service, scope=billing)
    table = window.table
    table.category.setCurrentIndex(table.category.findData("skill"))
    qtbot.waitUntil(lambda: table.model.total == 700 and table.model.is_settled())
    table.list_view.setFocus()
    ctrl_a(qtbot, window)
    qtbot.keyClick(table.list_view, Qt.Key.Key_Delete)
    qtbot.waitUntil(lambda: in_trash(service, billing) > 0, timeout=20_000)
    wait_idle(qtbot, window, 20_000)
    assert in_trash(service, billing) == 700
    assert active(service, billing) == 300


def row_point(window: MainWindow, row: int) -> QPoint:
    view = window.table.list_view
    return view.visualRect(view.model().index(row, 0)).center()


def test_ctrl_click_deselects_one_row_of_select_all_and_a_plain_click_selects_one(
    qtbot: QtBot, big_window: MainWindow, service: MemoryService, billing: str
) -> None:
    window, table = big_window, big_window.table
    ctrl_a(qtbot, window)
    kept = table.model.row_at(2).id
    qtbot.mouseClick(
        table.list_view.viewport(),
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.ControlModifier,
        row_point(window, 2),
    )
    qtbot.waitUntil(lambda: table.selected_count() == MEMORIES - 1)
    assert window.status.selection_label.text() == f"{MEMORIES - 1:,} selected"
    window.menu_actions.delete.trigger()
    qtbot.waitUntil(lambda: in_trash(service, billing) == MEMORIES - 1, timeout=20_000)
    wait_idle(qtbot, window, 20_000)
    assert [m.id for m in service.list_memories(billing)] == [kept]

    window.menu_actions.undo.trigger()
    qtbot.waitUntil(lambda: active(service, billing) == MEMORIES, timeout=20_000)
    qtbot.waitUntil(lambda: table.model.total == MEMORIES and table.model.is_settled())
    ctrl_a(qtbot, window)
    qtbot.waitUntil(lambda: table.selected_count() == MEMORIES)
    qtbot.mouseClick(
        table.list_view.viewport(), Qt.MouseButton.LeftButton, pos=row_point(window, 1)
    )
    qtbot.waitUntil(lambda: table.selected_count() == 1)
    assert table.selected_ids() == [table.model.row_at(1).id]


def test_a_bulk_action_can_be_cancelled_and_what_was_done_is_undone_in_one_step(
    qtbot: QtBot,
    big_window: MainWindow,
    service: MemoryService,
    billing: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    window = big_window
    first_done, go_on = threading.Event(), threading.Event()
    write_many = service.bulk.write_many
    calls = 0

    def gated(changes: Sequence[Change], actor: str, **kw: Any) -> BulkResult:
        nonlocal calls
        calls += 1
        if calls == 2:  # the second chunk waits until the person has pressed Cancel
            first_done.set()
            go_on.wait(10)
        return write_many(changes, actor, **kw)

    monkeypatch.setattr(service.bulk, "write_many", gated)
    ctrl_a(qtbot, window)
    window.menu_actions.delete.trigger()
    qtbot.waitUntil(first_done.is_set, timeout=20_000)
    qtbot.waitUntil(lambda: window.status.cancel_button.isVisible())
    window.status.cancel_button.click()
    go_on.set()
    wait_idle(qtbot, window, 20_000)
    removed = in_trash(service, billing)
    assert 0 < removed < MEMORIES
    assert window.ctx.undo.top_label() == f"Delete {removed:,} memories"
    assert not window.status.cancel_button.isVisible()
    window.menu_actions.undo.trigger()
    qtbot.waitUntil(lambda: active(service, billing) == MEMORIES, timeout=20_000)


def test_the_collector_is_paused_while_a_bulk_action_writes_and_on_again_after(
    qtbot: QtBot,
    big_window: MainWindow,
    service: MemoryService,
    billing: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The worker builds thousands of objects (each memory before and after, the writes
    that undo them): a garbage collection there holds the GIL for all its length (60 ms
    seen at 10,000 memories) and the window cannot finish a pass meanwhile."""
    collecting: list[bool] = []
    real_run = ops.run

    def run(*args: Any, **kwargs: Any) -> ops.BulkOutcome:
        collecting.append(gc.isenabled())
        return real_run(*args, **kwargs)

    monkeypatch.setattr(ops, "run", run)
    ctrl_a(qtbot, big_window)
    qtbot.keyClick(big_window.table.list_view, Qt.Key.Key_Delete)
    qtbot.waitUntil(lambda: big_window.ctx.undo.top_label() != "", timeout=20_000)
    wait_idle(qtbot, big_window, 20_000)
    assert in_trash(service, billing) == MEMORIES
    undo(qtbot, big_window)
    qtbot.waitUntil(lambda: active(service, billing) == MEMORIES, timeout=20_000)
    wait_idle(qtbot, big_window, 20_000)
    assert collecting == [False, False]  # the Delete, its undo
    assert gc.isenabled()


def test_the_collector_comes_back_when_the_last_of_two_overlapping_writes_ends() -> None:
    first, second = ops.collector_paused(), ops.collector_paused()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)
    assert not gc.isenabled()
    second.__exit__(None, None, None)
    assert gc.isenabled()

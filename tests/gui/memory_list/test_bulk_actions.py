"""Bulk actions on more memories than the lists hold in memory: the Trash's Restore, Erase
and Empty act on the whole selection (read on a worker, named with its real count); the
Stale tab's Remove runs in a few transactions with progress, buttons waiting, and one
Ctrl+Z undoes it all."""

from __future__ import annotations

import math
from collections.abc import Iterable
from contextlib import AbstractContextManager
from functools import partial
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from ltm_desktop.core.bulk.rules import BATCH_SIZE, Change
from ltm_desktop.core.errors import DatabaseBusy
from ltm_desktop.core.records import ChangeEvent, ListQuery, Memory, MemoryDraft
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.models.trash_model import TrashModel
from ltm_desktop.gui.panels import trash as trash_panel
from ltm_desktop.gui.window.main_window import TAB_STALE, TAB_TRASH, MainWindow
from tests.conftest import FakeClock
from tests.gui.conftest import WindowFactory, wait_idle

TRASHED = 600  # the Trash below holds 3 pages of 50 at most: most rows are never read
STALE = 2 * BATCH_SIZE + 200


@pytest.fixture
def small_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Trash reads pages of 50 and keeps 3 (the app: 200 and 25)."""
    monkeypatch.setattr(trash_panel, "TrashModel", partial(TrashModel, page_size=50, max_pages=3))


def fill(service: MemoryService, project: str, count: int, **draft: Any) -> list[Memory]:
    drafts = [
        MemoryDraft(f"Memory {i} about the billing module {i % 17}", **draft) for i in range(count)
    ]
    return service.import_memories(project, drafts, "agent")


def fill_trash(service: MemoryService, project: str, count: int = TRASHED) -> list[str]:
    memories = fill(service, project, count)
    removed = service.bulk.write_many(
        [Change(m.id, "remove", m.updated_at) for m in memories], "agent"
    )
    assert len(removed.done) == count
    return [m.id for m in memories]


@pytest.fixture
def trash_window(
    small_pages: None,
    qtbot: QtBot,
    make_window: WindowFactory,
    service: MemoryService,
    billing: str,
) -> tuple[MainWindow, list[str]]:
    """A window on the Trash tab of a scope with TRASHED memories in the Trash (and their ids)."""
    ids = fill_trash(service, billing)
    window = make_window(service, scope=billing)
    open_trash(qtbot, window, TRASHED)
    return window, ids


@pytest.fixture
def stale_window(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str, clock: FakeClock
) -> tuple[MainWindow, list[Memory]]:
    """A window on the Stale tab of a scope with STALE stale memories (and them)."""
    memories = fill(service, billing, STALE, importance=1)
    clock.advance(days=61)
    window = make_window(service, scope=billing)
    open_stale(qtbot, window)
    return window, memories


def in_trash(service: MemoryService, project: str) -> int:
    return service.count_memories(project, ListQuery(only_disabled=True, include_expired=True))


def open_trash(qtbot: QtBot, window: MainWindow, rows: int) -> None:
    window.center.setCurrentIndex(TAB_TRASH)
    qtbot.waitUntil(
        lambda: window.trash.model.rowCount() == rows and window.trash.model.is_settled()
    )


def confirm(qtbot: QtBot, window: MainWindow) -> str:
    """Answer the open erase question with "Erase permanently"; returns what it asked."""
    controls = window.trash.erase
    qtbot.waitUntil(lambda: controls.confirmation is not None)
    box = controls.confirmation
    assert box is not None
    text = box.text()
    next(b for b in box.buttons() if b.text() == "Erase permanently").click()
    return text


def open_stale(qtbot: QtBot, window: MainWindow) -> None:
    window.center.setCurrentIndex(TAB_STALE)
    qtbot.waitUntil(lambda: window.stale.model.rowCount() == STALE, timeout=10_000)


def said(window: MainWindow) -> list[str]:
    messages: list[str] = []
    window.memory_actions.message.connect(messages.append)
    return messages


def test_erasing_a_selection_wider_than_the_rows_read_erases_all_of_it(
    qtbot: QtBot,
    trash_window: tuple[MainWindow, list[str]],
    service: MemoryService,
    billing: str,
) -> None:
    window, ids = trash_window
    trash = window.trash
    assert len(trash.model.cached_pages()) < TRASHED // 50  # most rows are not read
    messages = said(window)
    trash.view.selectAll()
    trash.erase.erase_button.click()
    assert confirm(qtbot, window).startswith(f"Erase {TRASHED} memories for good?")
    qtbot.waitUntil(lambda: in_trash(service, billing) == 0, timeout=20_000)
    qtbot.waitUntil(lambda: f"Erased {TRASHED} memories for good." in messages)
    assert service.get_many(ids) == {}
    assert window.ctx.errors.shown == []
    qtbot.waitUntil(lambda: trash.model.rowCount() == 0)


def test_a_wide_selection_counts_every_row_and_names_only_memories_read(
    qtbot: QtBot,
    trash_window: tuple[MainWindow, list[str]],
    service: MemoryService,
    billing: str,
) -> None:
    window, _ = trash_window
    trash = window.trash
    trash.view.selectAll()
    assert trash.selected_count() == TRASHED
    loaded = trash.selected_ids()
    assert None not in loaded
    assert 0 < len(loaded) <= 3 * 50
    assert trash.erase.erase_button.isEnabled()
    assert trash.restore_button.isEnabled()


def test_restoring_a_selection_wider_than_the_rows_read_restores_all_of_it(
    qtbot: QtBot,
    trash_window: tuple[MainWindow, list[str]],
    service: MemoryService,
    billing: str,
) -> None:
    window, _ = trash_window
    window.trash.view.selectAll()
    window.trash.restore_button.click()
    qtbot.waitUntil(lambda: service.count_memories(billing) == TRASHED, timeout=20_000)
    assert in_trash(service, billing) == 0
    qtbot.waitUntil(lambda: window.ctx.undo.top_label() == f"Restore {TRASHED} memories")
    wait_idle(qtbot, window)
    window.menu_actions.undo.trigger()  # all back in the Trash
    qtbot.waitUntil(lambda: in_trash(service, billing) == TRASHED, timeout=20_000)


def test_empty_trash_names_how_many_it_erases(
    qtbot: QtBot,
    trash_window: tuple[MainWindow, list[str]],
    service: MemoryService,
    billing: str,
) -> None:
    window, _ = trash_window
    window.trash.erase.empty_button.click()
    assert f"all {TRASHED} memories" in confirm(qtbot, window)
    qtbot.waitUntil(lambda: in_trash(service, billing) == 0, timeout=20_000)


def test_a_trash_that_changed_while_selecting_is_said_and_nothing_is_done(
    qtbot: QtBot,
    trash_window: tuple[MainWindow, list[str]],
    service: MemoryService,
    billing: str,
) -> None:
    window, _ = trash_window
    window.ctx.bridge.stop()  # the list does not hear of the next removal
    service.remove(fill(service, billing, 1, title="Late")[0].id, "agent")
    messages = said(window)
    window.trash.view.selectAll()
    window.trash.restore_button.click()
    qtbot.waitUntil(lambda: any("The Trash changed while you were choosing" in m for m in messages))
    wait_idle(qtbot, window)
    assert service.count_memories(billing) == 0
    assert window.trash.erase.confirmation is None


def test_an_erase_stopped_part_way_says_how_many_were_erased(
    qtbot: QtBot,
    trash_window: tuple[MainWindow, list[str]],
    service: MemoryService,
    billing: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    window, _ = trash_window
    messages = said(window)
    Counted(monkeypatch, service, fail_at=2)  # the second batch cannot start
    window.trash.view.selectAll()
    window.trash.erase.erase_button.click()
    confirm(qtbot, window)
    qtbot.waitUntil(lambda: any(m.startswith("Erased ") for m in messages), timeout=20_000)
    [text] = [m for m in messages if m.startswith("Erased ")]
    assert text.startswith(f"Erased {BATCH_SIZE} of {TRASHED} memories for good. Then it stopped:")
    assert in_trash(service, billing) == TRASHED - BATCH_SIZE
    qtbot.waitUntil(lambda: bool(window.ctx.errors.open_boxes()))
    assert f"erase the other {TRASHED - BATCH_SIZE}" in window.ctx.errors.open_boxes()[0].text()
    window.ctx.errors.close_all()


def test_a_remove_stopped_part_way_keeps_what_was_done_undoable(
    qtbot: QtBot,
    stale_window: tuple[MainWindow, list[Memory]],
    service: MemoryService,
    billing: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    window, _ = stale_window
    messages = said(window)
    Counted(monkeypatch, service, fail_at=2)
    window.stale.select_all.click()
    window.stale.remove_button.click()
    qtbot.waitUntil(
        lambda: any(m.startswith("Moved to the Trash") for m in messages), timeout=20_000
    )
    [text] = [m for m in messages if m.startswith("Moved to the Trash")]
    assert f"{STALE - BATCH_SIZE} could not be changed" in text
    assert service.count_memories(billing) == STALE - BATCH_SIZE
    assert window.ctx.undo.top_label() == f"Delete {BATCH_SIZE} memories"
    window.ctx.errors.close_all()
    window.menu_actions.undo.trigger()
    qtbot.waitUntil(lambda: service.count_memories(billing) == STALE, timeout=20_000)


class Counted:
    """Counts the write transactions and the change notifications of the service;
    ``fail_at``: the n-th transaction fails to start (another program holds the lock).
    The methods are put back when the test ends (``monkeypatch``)."""

    def __init__(
        self, monkeypatch: pytest.MonkeyPatch, service: MemoryService, fail_at: int | None = None
    ) -> None:
        self.transactions = self.notifications = 0
        write, publish = service.store.write, service.events.publish

        def counted_write() -> AbstractContextManager[Any]:
            self.transactions += 1
            if self.transactions == fail_at:
                raise DatabaseBusy("the database is locked by another program")
            return write()

        def counted_publish(events: Iterable[ChangeEvent]) -> None:
            self.notifications += 1
            publish(events)

        monkeypatch.setattr(service.store, "write", counted_write)
        monkeypatch.setattr(service.events, "publish", counted_publish)


def test_removing_many_stale_memories_is_batched_shows_progress_and_undoes_at_once(
    qtbot: QtBot,
    stale_window: tuple[MainWindow, list[Memory]],
    service: MemoryService,
    billing: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    window, memories = stale_window
    stale = window.stale
    messages = said(window)
    counted = Counted(monkeypatch, service)
    stale.select_all.click()
    stale.remove_button.click()
    qtbot.waitUntil(lambda: service.count_memories(billing) == 0, timeout=20_000)
    qtbot.waitUntil(lambda: stale.model.rowCount() == 0, timeout=10_000)
    wait_idle(qtbot, window)
    batches = math.ceil(STALE / BATCH_SIZE)
    assert counted.transactions <= batches + 1  # + the write of a use count, at most
    assert counted.notifications <= batches + 1
    assert f"Move to the Trash: {BATCH_SIZE:,} of {STALE:,} done…" in messages
    assert window.ctx.undo.top_label() == f"Delete {STALE:,} memories"
    for memory in memories[:: BATCH_SIZE // 4]:  # each still audited on its own
        assert service.history.memory(memory.id)[-1].actor == "gui"

    window.menu_actions.undo.trigger()
    qtbot.waitUntil(lambda: service.count_memories(billing) == STALE, timeout=20_000)
    qtbot.waitUntil(lambda: stale.model.rowCount() == STALE, timeout=10_000)
    assert window.ctx.errors.shown == []


def test_the_stale_buttons_wait_while_a_bulk_action_runs(
    qtbot: QtBot,
    stale_window: tuple[MainWindow, list[Memory]],
    service: MemoryService,
    billing: str,
) -> None:
    window, _ = stale_window
    stale = window.stale
    states: list[tuple[bool, bool, bool]] = []  # (writing, Remove, Keep) as writes start, end

    def note(writing: bool) -> None:
        states.append((writing, stale.remove_button.isEnabled(), stale.keep_button.isEnabled()))

    window.memory_actions.writing.connect(note)
    stale.select_all.click()
    stale.keep_button.click()
    stale.remove_button.click()  # a second click while it runs does nothing
    qtbot.waitUntil(lambda: stale.model.rowCount() == 0, timeout=20_000)
    wait_idle(qtbot, window)
    assert states[0] == (True, False, False)
    assert states[-1][0] is False
    assert service.count_memories(billing) == STALE  # kept, none removed

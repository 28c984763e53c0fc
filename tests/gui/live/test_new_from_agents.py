""" "New from agents since you last looked": a filter, a count per project, and Mark all seen."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.memory_list.new_since import SEEN_KEY
from ltm_desktop.gui.models.projects_model import COL_NEW
from tests.conftest import FakeClock
from tests.gui.conftest import WindowFactory, add


@pytest.mark.slow
def test_new_from_agents_filter_count_and_mark_seen(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str, clock: FakeClock
) -> None:
    old = add(service, billing, "Written by an agent last week", actor="claude-code")
    clock.advance(days=7)
    window = make_window(service, scope=billing)  # the first look: a day back from now
    mine = add(service, billing, "Written by the person", actor="gui")
    clock.advance(1)
    fresh = add(service, billing, "Written by an agent today", actor="codex")
    projects, table = window.projects.model, window.table

    def new_in_sidebar() -> str:
        return projects.index(projects.row_of(billing), COL_NEW).data()

    window.projects.reload()
    qtbot.waitUntil(lambda: new_in_sidebar() == "1")
    table.new_since.toggle.setChecked(True)
    qtbot.waitUntil(lambda: [r.id for r in table.model.rows()] == [fresh.id])
    assert table.new_since.mark_seen.isVisible()
    assert {old.id, mine.id}.isdisjoint(r.id for r in table.model.rows())
    clock.advance(1)
    table.new_since.mark_seen.click()
    qtbot.waitUntil(lambda: table.model.rowCount() == 0 and not table.model.is_loading())
    qtbot.waitUntil(lambda: new_in_sidebar() == "")
    assert abs(float(window.ctx.settings.value(SEEN_KEY)) - service.now()) < 1
    clock.advance(1)
    later = add(service, billing, "Another agent note", actor="claude-code")
    qtbot.waitUntil(lambda: [r.id for r in table.model.rows()] == [later.id], timeout=5000)
    table.new_since.toggle.setChecked(False)
    qtbot.waitUntil(lambda: table.model.rowCount() == 4)


def test_new_holds_for_a_search_in_the_list(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str, clock: FakeClock
) -> None:
    add(service, billing, "Stripe keys: an agent wrote this last week", actor="claude-code")
    clock.advance(days=7)
    window = make_window(service, scope=billing)  # the first look: a day back from now
    add(service, billing, "Stripe webhooks: the person's own note", actor="gui")
    clock.advance(1)
    fresh = add(service, billing, "Stripe refunds: an agent wrote this today", actor="codex")
    table = window.table
    table.search_box.setText("stripe")
    qtbot.waitUntil(lambda: not table.search_model.pending and table.search_model.rowCount() == 3)
    table.new_since.toggle.setChecked(True)
    qtbot.waitUntil(lambda: [r.memory.id for r in table.search_model.rows()] == [fresh.id])
    table.new_since.toggle.setChecked(False)
    qtbot.waitUntil(lambda: table.search_model.rowCount() == 3)


@pytest.mark.slow
def test_a_burst_of_agent_writes_recounts_the_sidebar_a_few_times_and_ends_right(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str, clock: FakeClock
) -> None:
    """The stale and new counts read every memory (tens of ms at 100,000): a burst of writes
    recounts them now and then, not on every write, and the last write always counts."""
    window = make_window(service, scope=billing)
    projects = window.projects.model
    counted: list[float] = []
    real = service.reviews.new_counts

    def counting(since: float) -> dict[str, int]:
        counted.append(since)
        return real(since)

    service.reviews.new_counts = counting  # type: ignore[method-assign]
    clock.advance(1)
    for i in range(30):  # agents writing in a burst, each change heard by the window
        add(service, billing, f"Burst fact {i} about module b{i}q", actor="codex")
        qtbot.wait(100)  # the burst's pace (3 s in all), not a wait for an outcome
    qtbot.waitUntil(
        lambda: projects.index(projects.row_of(billing), COL_NEW).data() == "30", timeout=10_000
    )
    assert 1 <= len(counted) <= 3, counted  # every 2 s; a recount per 0.5 s made it 6-7

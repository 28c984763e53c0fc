"""The Overview tab: its charts say their numbers (tooltips, accessible descriptions, the
line under each chart), Ctrl+7 reaches it, and it recomputes only when the history moves."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from ltm_desktop.core.records import GUI_ACTOR
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.window.main_window import MainWindow
from tests.gui.conftest import WindowFactory, add, wait_idle


def open_overview(qtbot: QtBot, window: MainWindow) -> None:
    window.overview.go_action.trigger()
    qtbot.waitUntil(lambda: window.overview.shown is not None)
    wait_idle(qtbot, window)


def test_the_charts_say_their_numbers(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    add(service, billing, "Deploys go through make deploy", title="Deploy")
    add(service, billing, "Prefer small commits", title="Commits", category="preference")
    mine = add(service, billing, "Ship the invoice footer", title="Footer", category="task")
    service.remove(mine.id, GUI_ACTOR)
    window = make_window(service, scope=billing)
    open_overview(qtbot, window)
    panel = window.overview
    assert window.center.currentWidget() is panel
    assert QApplication.focusWidget() is panel.memories  # Ctrl+7 puts the keyboard there

    described = panel.memories.accessibleDescription()
    assert "knowledge 1, preference 1, task 0, skill 0 (2 memories)" in described
    assert panel.cards[0].detail.text().startswith("2 memories now")
    qtbot.keyClick(panel.memories, Qt.Key.Key_End)
    assert (
        panel.cards[0]
        .detail.text()
        .endswith("knowledge 1, preference 1, task 0, skill 0 (2 memories)")
    )

    today = panel.writes.tip(panel.writes.count() - 1)
    assert "you 1" in today  # the removal
    assert "(4 changes)" in today  # and three adds
    assert "4 changes in 30 days, 1 of them yours" in panel.cards[1].detail.text()

    assert "Importance 0, never used: 2 memories" in panel.uses.accessibleDescription()
    stale = panel.stale.tip(panel.stale.count() - 1)
    assert "removed 1" in stale
    budget = panel.budget.accessibleDescription()
    assert budget.startswith("MEMORY.md: ")
    assert "knowledge: " in budget

    area = panel.memories.items(panel.memories.plot_rect())[-1]  # what hovering shows
    assert panel.memories.item_at(area.center()) == panel.memories.count() - 1


def test_a_new_scope_reads_well(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    window = make_window(service, scope=billing)
    open_overview(qtbot, window)
    panel = window.overview
    assert panel.memories.is_empty()
    assert "No memories yet" in panel.memories.accessibleDescription()
    assert "No changes in the last 30 days" in panel.cards[1].detail.text()
    assert "MEMORY.md is empty" in panel.budget.accessibleDescription()


def test_it_recomputes_only_when_the_history_moves(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    add(service, billing, "First fact")
    window = make_window(service, scope=billing)
    open_overview(qtbot, window)
    panel = window.overview
    cache = panel.cache
    assert cache.computed == 1
    shown = panel.shown

    window.center.setCurrentIndex(0)  # away and back: nothing recomputed
    window.center.setCurrentWidget(panel)
    panel.reload_now()
    panel.repaint()
    wait_idle(qtbot, window)
    assert cache.computed == 1
    assert panel.shown is shown

    add(service, billing, "Second fact, an agent wrote it")
    qtbot.waitUntil(lambda: cache.computed == 2)
    wait_idle(qtbot, window)
    assert panel.shown is not shown
    assert panel.cards[0].detail.text().startswith("2 memories now")

    panel.everywhere.setChecked(True)  # every project: another key
    qtbot.waitUntil(lambda: panel.shown is not None and panel.shown.scope is None)
    assert cache.computed == 3
    assert "per project" in panel.budget.accessibleDescription()

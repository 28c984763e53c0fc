"""Removing thousands of stale memories repaints the Stale list a bounded number of times
(once per chunk at most), not once per row."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QItemSelection, QItemSelectionModel
from pytestqt.qtbot import QtBot

from ltm_desktop.core.records import MemoryDraft
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.window.main_window import TAB_STALE
from tests.conftest import FakeClock
from tests.gui.conftest import WindowFactory

COUNT = 3000


@pytest.mark.slow
def test_removing_thousands_of_stale_rows_repaints_per_chunk(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str, clock: FakeClock
) -> None:
    drafts = [MemoryDraft(f"Trivia number {i} nobody needs", importance=1) for i in range(COUNT)]
    service.import_memories(billing, drafts, "agent")
    clock.advance(days=61)
    window = make_window(service, scope=billing)
    window.center.setCurrentIndex(TAB_STALE)
    stale = window.stale
    qtbot.waitUntil(lambda: stale.model.rowCount() == COUNT, timeout=20000)
    # every other row: thousands of separate ranges, the worst case for a row-by-row patch
    selection = QItemSelection()
    for row in range(0, COUNT, 2):
        selection.select(stale.model.index(row, 0), stale.model.index(row, 0))
    stale.view.selectionModel().select(
        selection,
        QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows,
    )
    changes: list[str] = []
    model = stale.model
    model.modelReset.connect(lambda: changes.append("reset"))
    model.layoutChanged.connect(lambda: changes.append("layout"))
    model.rowsRemoved.connect(lambda *_: changes.append("removed"))
    model.rowsInserted.connect(lambda *_: changes.append("inserted"))
    stale.remove_selected()
    qtbot.waitUntil(lambda: model.rowCount() == COUNT // 2, timeout=30000)
    qtbot.waitUntil(window.is_idle, timeout=30000)
    assert len(changes) <= 10, f"{len(changes)} model changes: {changes[:5]}…"

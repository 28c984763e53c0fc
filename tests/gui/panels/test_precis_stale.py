"""The MEMORY.md preview follows edits; stale candidates can be removed or kept in bulk."""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, Qt
from pytestqt.qtbot import QtBot

from ltm_desktop.core.records import GLOBAL_PROJECT_ID
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.config import Settings
from ltm_desktop.gui.models.stale_model import COL_AGE, COL_REASON
from ltm_desktop.gui.window.main_window import TAB_PRECIS, TAB_STALE
from tests.conftest import FakeClock, ServiceFactory
from tests.gui.conftest import WindowFactory, add


def test_precis_meter_and_preview_update_after_an_edit(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    memory = add(service, billing, "Short fact", title="Fact")
    add(service, GLOBAL_PROJECT_ID, "Prefer tabs? No: spaces.", title="Indentation")
    window = make_window(service, scope=billing)
    window.details.setCurrentIndex(TAB_PRECIS)
    precis = window.precis
    qtbot.waitUntil(lambda: precis.info is not None and precis.info.project_id == billing)
    assert precis.info is not None
    before = precis.info.bytes
    assert precis.meter.text() == f"{before:,} / 5,120 bytes"
    assert "Short fact" in precis.raw.toPlainText()
    assert precis.model.rowCount() == 2  # the project's memory and the global one

    service.update(
        memory.id, {"content": "A much longer fact that now fills more of the budget"}, "gui"
    )
    qtbot.waitUntil(lambda: "much longer fact" in precis.raw.toPlainText())
    info = precis.info
    assert info is not None
    assert info.bytes > before
    assert precis.meter.text() == f"{info.bytes:,} / 5,120 bytes"
    assert "much longer fact" in precis.rendered.toPlainText()
    assert not precis.warning.isVisible()


def test_precis_warns_when_truncated_and_lists_what_was_cut(
    qtbot: QtBot, make_window: WindowFactory, make_service: ServiceFactory, tmp_path: object
) -> None:
    service = make_service(settings=Settings(precis_budget_bytes=300))
    project = service.resolve_scope(cwd="/home/dev/src/tiny", register=True)
    for i, word in enumerate(("alpha", "bravo", "charlie", "delta")):
        add(service, project, f"{word} " * 30, title=f"Memory {word}", importance=9 - i)
    window = make_window(service, scope=project)
    window.details.setCurrentIndex(TAB_PRECIS)
    qtbot.waitUntil(lambda: window.precis.info is not None and window.precis.info.truncated)
    assert "cut at its 300-byte budget" in window.precis.warning.text()
    statuses = [r.included for r in window.precis.model.rows()]
    assert statuses[0]
    assert not statuses[-1]
    cut = window.precis.model.rows()[-1]
    window.precis.on_candidate_clicked(window.precis.model.index(3, 1))
    qtbot.waitUntil(lambda: window.editor.memory_id == cut.id)


def test_stale_bulk_remove_and_keep(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str, clock: FakeClock
) -> None:
    old = [
        add(service, billing, f"{word} trivia nobody needs", importance=1)
        for word in ("Old", "Ancient", "Dusty")
    ]
    add(service, billing, "Important and current", importance=8)
    clock.advance(days=61)
    window = make_window(service, scope=billing)
    window.center.setCurrentIndex(TAB_STALE)
    stale = window.stale
    qtbot.waitUntil(lambda: stale.model.rowCount() == 3)
    assert "untouched for 61 days" in stale.model.rows()[0].reason

    flags = QItemSelectionModel.SelectionFlag
    selection = stale.view.selectionModel()
    for row in (0, 1):
        selection.select(stale.model.index(row, 0), flags.Select | flags.Rows)
    removed = set(stale.selected_ids())
    stale.remove_button.click()
    qtbot.waitUntil(lambda: stale.model.rowCount() == 1)
    assert all(service.get(i).disabled for i in removed)

    stale.view.selectAll()
    stale.keep_button.click()
    qtbot.waitUntil(lambda: stale.model.rowCount() == 0)
    kept = next(m for m in old if m.id not in removed)
    assert service.get(kept.id).reviewed_at is not None
    assert service.stale.memories(billing) == []
    assert "No stale memories" in stale.summary.text()


def test_stale_raise_importance(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str, clock: FakeClock
) -> None:
    memory = add(service, billing, "Low value note", importance=0)
    clock.advance(days=61)
    window = make_window(service, scope=billing)
    window.center.setCurrentIndex(TAB_STALE)
    qtbot.waitUntil(lambda: window.stale.model.rowCount() == 1)
    window.stale.view.selectAll()
    window.stale.importance.setValue(4)
    window.stale.raise_button.click()
    qtbot.waitUntil(lambda: window.stale.model.rowCount() == 0)
    assert service.get(memory.id).importance == 4


def test_stale_idle_column_shows_its_whole_text(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str, clock: FakeClock
) -> None:
    """The idle days must not be cut to "9…" (sizing to contents saw only the header)."""
    add(service, billing, "Forgotten note", importance=0)
    clock.advance(days=9_000)
    window = make_window(service, scope=billing)
    window.center.setCurrentIndex(TAB_STALE)
    view = window.stale.view
    qtbot.waitUntil(lambda: window.stale.model.rowCount() == 1)
    text = window.stale.model.index(0, COL_AGE).data()
    assert text.endswith(" days")
    assert view.columnWidth(COL_AGE) >= view.fontMetrics().horizontalAdvance(text) + 8
    reason = window.stale.model.index(0, COL_REASON)
    assert reason.data(Qt.ItemDataRole.ToolTipRole) == reason.data()  # in full when elided

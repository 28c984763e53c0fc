"""Smaller things: a click after Ctrl+N, MEMORY.md's cut-short memory and full meter,
history to the second, every validation error at once and a character counter."""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel
from pytestqt.qtbot import QtBot

from ltm_desktop.core.rules import MAX_CONTENT_CHARS
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.config import Settings
from ltm_desktop.gui import theme
from ltm_desktop.gui.memory_list.memory_table import PAGE_EMPTY, PAGE_LIST
from ltm_desktop.gui.models.history_model import COL_TIME
from ltm_desktop.gui.models.precis_model import COL_STATUS
from ltm_desktop.gui.window.main_window import TAB_HISTORY, TAB_PRECIS
from tests.conftest import ServiceFactory
from tests.gui.conftest import BILLING, WindowFactory, add


def test_a_click_on_the_highlighted_row_after_new_memory_opens_it(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    memory = add(service, billing, "Open me again after Ctrl+N")
    window = make_window(service, scope=billing)
    qtbot.waitUntil(lambda: window.table.select_memory(memory.id))
    qtbot.waitUntil(lambda: window.editor.memory_id == memory.id)
    window.menu_actions.new_memory.trigger()
    assert window.editor.new_project == billing
    view, model = window.table.list_view, window.table.model
    flags = QItemSelectionModel.SelectionFlag
    view.selectionModel().setCurrentIndex(  # what a click on the row does
        model.index(model.row_of(memory.id), 0), flags.ClearAndSelect | flags.Rows
    )
    qtbot.waitUntil(lambda: window.editor.memory_id == memory.id)
    assert window.editor.new_project is None


def test_memory_md_names_the_cut_short_memory_and_the_meter_turns(
    qtbot: QtBot, make_window: WindowFactory, make_service: ServiceFactory
) -> None:
    service = make_service(settings=Settings(precis_budget_bytes=400))
    billing = service.resolve_scope(cwd=BILLING, register=True)
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"]
    for i, word in enumerate(words):  # different texts: none supersedes another
        text = " ".join(f"{word}{n}" for n in range(25))
        add(service, billing, text, importance=9 - i)
    window = make_window(service, scope=billing)
    window.details.setCurrentIndex(TAB_PRECIS)
    precis = window.precis
    qtbot.waitUntil(lambda: precis.model.rowCount() > 0 and precis.info is not None)
    statuses = [precis.model.index(r, COL_STATUS).data() for r in range(precis.model.rowCount())]
    assert "cut short" in statuses
    assert statuses.index("cut short") == statuses.count("included")  # after the included
    assert precis.meter.styleSheet() == theme.meter_style(full=True)  # the amber bar


def test_history_shows_seconds(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    memory = add(service, billing, "A memory with a history")
    window = make_window(service, scope=billing)
    qtbot.waitUntil(lambda: window.table.select_memory(memory.id))
    window.details.setCurrentIndex(TAB_HISTORY)
    model = window.history.model
    qtbot.waitUntil(lambda: model.rowCount() > 0)
    when = model.index(0, COL_TIME).data()
    assert len(when.split(" ")[1].split(":")) == 3  # HH:MM:SS


def test_every_validation_error_at_once_and_a_character_counter(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    window = make_window(service, scope=billing)
    window.menu_actions.new_memory.trigger()
    form = window.editor.form
    form.content.setPlainText("x" * (MAX_CONTENT_CHARS + 1))
    assert form.counter.text() == f"{MAX_CONTENT_CHARS + 1:,} / {MAX_CONTENT_CHARS:,} characters"
    form.tags.setText("ok, " + "t" * 60)
    form.title.setText("T" * 300)
    window.editor.save()
    assert form.error_text("content")
    assert form.error_text("tags")
    assert form.error_text("title")
    form.content.setPlainText("Short and fine")
    assert form.counter.text() == f"14 / {MAX_CONTENT_CHARS:,} characters"


def test_a_filter_that_hides_every_memory_offers_to_clear_it(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    add(service, billing, "Builds use make", tags=["build"])
    window = make_window(service, scope=billing)
    table = window.table
    table.tag.setText("nope")
    table.on_filters_changed()
    qtbot.waitUntil(lambda: table.stack.currentIndex() == PAGE_EMPTY)
    assert "No memory matches these filters" in table.empty.label.text()
    assert table.empty.clear_button.isVisible()
    table.empty.clear_button.click()
    qtbot.waitUntil(lambda: table.stack.currentIndex() == PAGE_LIST)
    assert table.tag.text() == ""

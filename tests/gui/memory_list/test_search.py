"""Search-as-you-type through the real window: ranked, highlighted, latest query wins, no reinforcement."""

from __future__ import annotations

from pathlib import Path
from typing import cast

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QStyleOptionViewItem
from pytestqt.qtbot import QtBot

from ltm_desktop.core.records import MemoryDraft
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.memory_list.delegates import HtmlDelegate
from ltm_desktop.gui.memory_list.memory_table import PAGE_LIST, PAGE_SEARCH
from ltm_desktop.gui.models.base import HtmlRole
from ltm_desktop.gui.models.search_model import COL_MATCH, COL_TITLE
from ltm_desktop.store import SqliteStore
from tests.conftest import ServiceFactory
from tests.doubles.embedders import BrokenEmbedder, WordHashEmbedder
from tests.gui.conftest import WindowFactory, add


def test_typing_shows_ranked_highlighted_hits_without_reinforcing(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    best = add(
        service,
        billing,
        "Deploy to production with the release workflow",
        title="Production deploy",
    )
    add(service, billing, "The staging server mirrors production data nightly")
    add(service, billing, "Unrelated note about invoice footers")
    window = make_window(service, scope=billing)
    table = window.table

    qtbot.keyClicks(table.search_box, "deploy produc")
    qtbot.waitUntil(
        lambda: table.stack.currentIndex() == PAGE_SEARCH and table.search_model.rowCount() > 0
    )
    model = table.search_model
    assert model.row_at(0).id == best.id  # ranked: the best match first
    assert "<b>" in model.index(0, COL_MATCH).data(HtmlRole)
    assert model.index(0, COL_TITLE).data(HtmlRole) == "<b>Production</b> <b>deploy</b>"
    assert all(
        m.use_count == 0 for m in service.list_memories(billing)
    )  # browsing never reinforces

    table.search_box.clear()
    qtbot.waitUntil(lambda: table.stack.currentIndex() == PAGE_LIST)
    assert table.model.rowCount() == 3


def test_any_text_is_accepted_and_html_is_escaped(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    add(service, billing, "Use <b>bold</b> tags sparingly in C++ docs")
    window = make_window(service, scope=billing)
    table = window.table
    for text in ('"unclosed', "C++ AND (", "NEAR -", "<b>bold</b>"):
        table.search_box.setText(text)
        table.search_box.flush()
        qtbot.waitUntil(lambda: not table.search_model.pending)
    assert table.search_model.rowCount() == 1
    html = table.search_model.index(0, COL_MATCH).data(HtmlRole)
    assert "&lt;" in html  # the memory's own markup is shown as text, not rendered


def test_latest_query_wins(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    add(service, billing, "Kubernetes cluster notes")
    add(service, billing, "Terraform state notes")
    window = make_window(service, scope=billing)
    table = window.table
    table.search_box.setText("kubernetes")
    table.search_box.flush()
    table.search_box.setText("terraform")  # supersedes the first before it can land
    table.search_box.flush()
    qtbot.waitUntil(lambda: not table.search_model.pending and window.ctx.runner.is_idle())
    assert [r.memory.title for r in table.search_model.rows()] == ["Terraform state notes"]


def test_find_shortcut_focuses_the_search_field(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService
) -> None:
    window = make_window(service)
    window.menu_actions.find.trigger()
    qtbot.waitUntil(window.table.search_box.hasFocus)


def test_a_hit_found_by_meaning_says_so(
    qtbot: QtBot, make_window: WindowFactory, make_service: ServiceFactory, tmp_path: Path
) -> None:
    embedder = WordHashEmbedder({"failures": "crash", "logged": "report", "reported": "report"})
    service = make_service(tmp_path / "semantic", embedder=embedder)
    scope = service.resolve_scope(cwd="/home/dev/src/shop", register=True)
    found = add(service, scope, "Crashes are reported to Sentry")
    words = add(service, scope, "Failures logged in the audit table")
    window = make_window(service, scope=scope)
    table = window.table
    qtbot.keyClicks(table.search_box, "failures logged")
    qtbot.waitUntil(lambda: table.search_model.rowCount() == 2)
    model = table.search_model
    assert [model.row_at(0).id, model.row_at(1).id] == [words.id, found.id]
    assert "<b>" in model.index(0, COL_MATCH).data(HtmlRole)  # words: highlighted
    assert model.index(1, COL_MATCH).data().startswith("similar meaning — Crashes")
    assert "none of the words" in model.index(1, COL_MATCH).data(Qt.ItemDataRole.ToolTipRole)
    assert table.count_label.text() == "1 match and 1 similar in meaning, best first"


def test_the_status_bar_shows_indexing_and_why_search_is_by_words_only(
    qtbot: QtBot, make_window: WindowFactory, make_service: ServiceFactory, tmp_path: Path
) -> None:
    service = make_service(tmp_path / "broken", embedder=BrokenEmbedder())
    scope = service.resolve_scope(cwd="/home/dev/src/shop", register=True)
    service.import_memories(scope, [MemoryDraft("imported before vectors existed")], "a")
    window = make_window(service, scope=scope)
    service.backfill.run_once()
    window.status.on_poll_due()
    label = window.status.search_label
    assert label.isVisibleTo(window)
    assert label.text() == "Search by words only"
    assert "could not be loaded" in label.toolTip()


def test_search_keeps_to_the_category_tag_and_removed_filters(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    skill = add(service, billing, "Deploy with make deploy", category="skill")
    add(service, billing, "Deploy windows are on Fridays", category="knowledge", tags=["ops"])
    removed = add(service, billing, "Deploy used to go through Jenkins", category="skill")
    service.remove(removed.id, "gui")
    window = make_window(service, scope=billing)
    table = window.table

    def hits() -> set[str]:
        model = table.search_model
        return {model.row_at(r).id for r in range(model.rowCount())}

    table.search_box.setText("deploy")
    table.search_box.flush()
    qtbot.waitUntil(lambda: len(hits()) == 2)
    table.category.setCurrentIndex(table.category.findData("skill"))
    qtbot.waitUntil(lambda: hits() == {skill.id})
    table.show_removed.setChecked(True)
    qtbot.waitUntil(lambda: hits() == {skill.id, removed.id})
    row = table.search_model.row_of(removed.id)
    assert table.search_model.index(row, COL_TITLE).data(HtmlRole).startswith("<s>")
    table.category.setCurrentIndex(0)
    table.show_removed.setChecked(False)
    table.tag.setText("ops")
    table.tag.editingFinished.emit()
    qtbot.waitUntil(lambda: len(hits()) == 1 and skill.id not in hits())


def test_long_titles_and_snippets_end_in_an_ellipsis_and_the_cap_is_said(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    long_title = "Rotating the payment gateway credentials without downtime for every region"
    body = " ".join(f"word{i}" for i in range(60)) + " gateway rotation steps follow here"
    add(service, billing, body, title=long_title)
    service.import_memories(
        billing, [MemoryDraft(f"gateway note {i}", title=f"Gateway {i}") for i in range(120)], "t"
    )
    window = make_window(service, scope=billing)
    window.resize(1440, 860)  # the first size on a large screen (the offscreen one is small)
    table = window.table
    table.search_box.setText("gateway")
    table.search_box.flush()
    qtbot.waitUntil(lambda: table.stack.currentIndex() == PAGE_SEARCH)
    assert table.search_model.rowCount() == 100
    assert table.count_label.text() == (
        "The best 100 are shown: 100 matches (add a word to narrow the search)"
    )
    assert table.search_view.columnWidth(COL_MATCH) >= 200
    table.search_box.setText("gateway rotation")
    table.search_box.flush()
    qtbot.waitUntil(lambda: table.search_model.row_at(0).memory.title == long_title)
    view, row = table.search_view, 0
    option = QStyleOptionViewItem()
    option.initFrom(view)
    for column in (COL_TITLE, COL_MATCH):
        html = table.search_model.index(row, column).data(HtmlRole)
        full = table.search_model.index(row, column).data()
        shown = HtmlDelegate.shown_text(html, option, 120)
        assert shown.endswith("…")
        kept = shown[:-1]
        assert full.startswith(kept)
        assert full[len(kept)] == " "  # cut between words, not inside one


def test_a_tag_the_filter_cannot_take_is_said_under_the_list(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    add(service, billing, "Something to list")
    window = make_window(service, scope=billing)
    table = window.table
    qtbot.waitUntil(lambda: table.model.total == 1)
    table.tag.setText("x" * 41)
    table.tag.editingFinished.emit()
    assert table.count_label.text().startswith("Not filtered by tag: ")
    assert "at most 40 characters" in table.count_label.text()
    table.tag.setText("")  # cleared: filtered (by nothing) again, the count is back
    qtbot.waitUntil(lambda: table.count_label.text() == "1 memory")


def test_opening_a_scope_prepares_its_search_by_meaning(
    qtbot: QtBot, make_window: WindowFactory, make_service: ServiceFactory, tmp_path: Path
) -> None:
    """The model is loaded and the scope's vectors read on a worker when a scope opens,
    not when the first query is typed (seconds at 60,000 memories)."""
    embedder = WordHashEmbedder()
    service = make_service(tmp_path / "warm", embedder=embedder)
    scope = service.resolve_scope(cwd="/home/dev/src/shop", register=True)
    add(service, scope, "Crashes are reported to Sentry")
    embedder.calls = 0
    make_window(service, scope=scope)
    qtbot.waitUntil(lambda: embedder.calls >= 1)  # nothing was typed
    assert cast(SqliteStore, service.store)._db.vectors.memory_bytes() > 0  # the scope was read

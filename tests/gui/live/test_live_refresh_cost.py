"""What a live write costs the window: the list re-reads the rows its view shows (and a
margin), not every page it ever read; refreshes are coalesced while writes stream in; the
MEMORY.md panel does not render again what did not change."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from ltm_desktop.core.records import GLOBAL_PROJECT_ID
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.memory_list.view_state import row_spans, spans_of
from ltm_desktop.gui.models.memory_model import MemoryQuery, MemoryTableModel
from ltm_desktop.gui.models.sparse import SparseTableModel
from ltm_desktop.gui.tasks import TaskRunner
from ltm_desktop.gui.window.main_window import TAB_PRECIS, MainWindow
from tests.gui.conftest import WindowFactory, add
from tests.gui.memory_list.test_scroll_far import MEMORIES, fill

SIZE = 200  # the list's page size
FACTS = (  # distinct enough not to be taken for near-duplicates of each other
    "Kubernetes rollouts use a surge of two pods",
    "Terraform state lives in an S3 bucket with locking",
    "Release tags are cut from the main branch only",
    "Canary traffic starts at five percent for an hour",
    "Database migrations run before the pods roll",
    "Secrets are read from Vault when the service boots",
    "Docker images are built with buildx for arm64 too",
    "Feature flags guard the risky payment endpoints",
    "The rollback command is make rollback ENV=prod",
    "Smoke tests hit the health endpoint after deploys",
    "Grafana dashboards track the p99 checkout latency",
    "Pager alerts route to the on-call engineer's phone",
)


class Reads:
    """Counts what a model's fetcher reads (worker side): rows, and refreshes (counts)."""

    def __init__(self, model: SparseTableModel, monkeypatch: pytest.MonkeyPatch) -> None:
        self.rows = self.counts = 0
        self._lock = threading.Lock()
        make_fetcher = model.make_fetcher
        reads = self

        def counting() -> Any:
            made = make_fetcher()
            if made is None:
                return None
            inner = made

            class Counting:
                def page(self, offset: int, limit: int, last: Any | None) -> Any:
                    rows, more = inner.page(offset, limit, last)
                    with reads._lock:
                        reads.rows += len(rows)
                    return rows, more

                def total(self) -> int | None:
                    with reads._lock:
                        reads.counts += 1
                    return inner.total()

            return Counting()

        monkeypatch.setattr(model, "make_fetcher", counting)

    def take(self) -> tuple[int, int]:
        """(rows read, counts) since the last take."""
        with self._lock:
            taken, self.rows, self.counts = (self.rows, self.counts), 0, 0
        return taken


def shown_pages(window: MainWindow) -> set[int]:
    """The pages the list's view shows, and one either side: what a refresh may keep."""
    view = window.table.list_view
    top, bottom = view.rowAt(0), view.rowAt(view.viewport().height() - 1)
    bottom = window.table.model.rowCount() - 1 if bottom < 0 else bottom
    return set(range(max(0, top // SIZE - 1), bottom // SIZE + 2))


def counting_window(
    qtbot: QtBot,
    make_window: WindowFactory,
    service: MemoryService,
    billing: str,
    monkeypatch: pytest.MonkeyPatch,
) -> tuple[MainWindow, Reads]:
    fill(service, billing)
    window = make_window(service, scope=billing)
    model = window.table.model
    reads = Reads(model, monkeypatch)
    model.reload()  # from here on through the counting fetcher
    qtbot.waitUntil(lambda: model.rowCount() == MEMORIES and model.is_settled())
    return window, reads


def write_and_wait(
    qtbot: QtBot, window: MainWindow, service: MemoryService, billing: str, i: int
) -> None:
    model = window.table.model
    expected = model.rowCount() + 1
    add(service, billing, FACTS[i], importance=10)  # sorts first: every row shifts down
    qtbot.waitUntil(lambda: model.rowCount() == expected and model.is_settled(), timeout=5000)


@pytest.mark.slow
@pytest.mark.parametrize("where", ["top", "middle"])
def test_live_writes_reread_only_what_the_view_shows(
    qtbot: QtBot,
    make_window: WindowFactory,
    service: MemoryService,
    billing: str,
    monkeypatch: pytest.MonkeyPatch,
    where: str,
) -> None:
    """The reviewer's case: writes streaming into a long list grew its cache by a page a
    write (the page read to find shifted rows was kept), and each write re-read all of it."""
    window, reads = counting_window(qtbot, make_window, service, billing, monkeypatch)
    view, model = window.table.list_view, window.table.model
    if where == "middle":
        bar = view.verticalScrollBar()
        bar.setValue(bar.maximum() // 2)
        qtbot.waitUntil(lambda: model.row_at(view.rowAt(0)) is not None and model.is_settled())
    reads.take()
    top = view.rowAt(0)
    top_id, top_y = model.row_at(top).id, view.rowViewportPosition(top)
    for i in range(12):
        write_and_wait(qtbot, window, service, billing, i)
        rows, counts = reads.take()
        pages = shown_pages(window)
        assert set(model.cached_pages()) <= pages, (i, model.cached_pages(), pages)
        assert rows <= len(pages) * SIZE, (i, rows, pages)
        assert counts == 1  # one refresh a write, when they come one at a time
    shifted = model.row_of(top_id)  # the top row stayed where it was on screen
    assert shifted == top + 12
    assert view.rowViewportPosition(shifted) == top_y


@pytest.mark.slow
def test_the_current_row_off_screen_is_kept_across_writes(
    qtbot: QtBot,
    make_window: WindowFactory,
    service: MemoryService,
    billing: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Rows the view does not show but holds (current, selected) are re-read too: they
    stay selected, on the right row, while the view is elsewhere."""
    window, reads = counting_window(qtbot, make_window, service, billing, monkeypatch)
    table, view, model = window.table, window.table.list_view, window.table.model
    chosen = model.row_at(5).id
    assert table.select_memory(chosen)
    qtbot.waitUntil(lambda: table.current_id() == chosen)
    bar = view.verticalScrollBar()
    bar.setValue(bar.maximum() // 2)
    qtbot.waitUntil(lambda: model.row_at(view.rowAt(0)) is not None and model.is_settled())
    reads.take()
    for i in range(3):
        write_and_wait(qtbot, window, service, billing, i)
        rows, _counts = reads.take()
        assert set(model.cached_pages()) <= shown_pages(window) | {0}
        assert rows <= (len(shown_pages(window)) + 2) * SIZE
    assert model.row_of(chosen) == 5 + 3
    assert table.selected_ids() == [chosen]
    assert table.current_id() == chosen
    assert view.currentIndex().row() == 8


@pytest.mark.slow
def test_refreshes_asked_for_in_a_burst_are_read_once(
    qtbot: QtBot,
    service: MemoryService,
    billing: str,
    runner: TaskRunner,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Changes streaming in right after a refresh wait for one trailing refresh (the gap),
    which reads them all: the last change always shows."""
    fill(service, billing, 300)
    model = MemoryTableModel(service, runner, refresh_gap_ms=1_000)
    reads = Reads(model, monkeypatch)
    model.set_query(MemoryQuery(project_id=billing))
    qtbot.waitUntil(model.is_settled)
    model.refresh()  # after a quiet spell: at once
    qtbot.waitUntil(model.is_settled)
    assert reads.take()[1] == 2  # the first page's count and this refresh's
    for fact in FACTS[:5]:
        add(service, billing, fact)
        model.refresh()
    assert not model.is_settled()  # the trailing refresh is due
    qtbot.waitUntil(lambda: model.is_settled() and model.rowCount() == 305, timeout=5000)
    assert reads.take()[1] == 1


def test_the_memory_md_panel_does_not_render_the_same_text_again(
    qtbot: QtBot,
    make_window: WindowFactory,
    service: MemoryService,
    billing: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    add(service, billing, "Deploys go out on Tuesdays", title="Deploy day", importance=8)
    add(service, GLOBAL_PROJECT_ID, "Prefer spaces to tabs", title="Indentation")
    window = make_window(service, scope=billing)
    window.details.setCurrentIndex(TAB_PRECIS)
    precis = window.precis
    qtbot.waitUntil(lambda: precis.info is not None and precis.model.rowCount() == 2)
    rendered: list[str] = []
    patched: list[int] = []
    real = precis.rendered.setMarkdown

    def set_markdown(text: str) -> None:
        rendered.append(text)
        real(text)

    monkeypatch.setattr(precis.rendered, "setMarkdown", set_markdown)
    precis.model.refresh_started.connect(lambda: patched.append(1))
    loads: list[object] = []
    precis.precis_loaded.connect(loads.append)
    for _ in range(3):
        precis.reload_now()  # what F5 does: read again, nothing changed
    qtbot.waitUntil(lambda: len(loads) >= 1 and window.ctx.runner.is_idle())
    assert rendered == []  # the same text: not rendered, the candidates not patched
    assert patched == []

    add(service, billing, "Releases are tagged from main", title="Tags", importance=9)
    qtbot.waitUntil(lambda: "tagged from main" in precis.raw.toPlainText())
    qtbot.waitUntil(lambda: "tagged from main" in precis.rendered.toPlainText())
    assert len(rendered) == 1
    assert patched


def test_selection_spans() -> None:
    assert spans_of([]) == []
    assert spans_of([1, 2, 3, 7, 9, 10]) == [(1, 3), (7, 7), (9, 10)]
    assert spans_of([4, 4, 5]) == [(4, 5)]
    from PySide6.QtCore import QItemSelection, QStringListModel

    model = QStringListModel([str(i) for i in range(20)])
    selection = QItemSelection()
    for first, last in ((8, 9), (1, 3), (4, 4), (12, 15), (14, 16)):
        selection.select(model.index(first, 0), model.index(last, 0))
    assert row_spans(selection) == [(1, 4), (8, 9), (12, 16)]

"""A random-access row model: the true row count up front, pages read on demand.

``rowCount`` is the query's count (one cheap ``count(*)``), so the scroll bar is
the whole list from the first paint and End / Ctrl+End / dragging to the bottom
ask for the last page only. A cell whose page is not in yet answers a placeholder
and asks for that page; pages are read on the task runner, a bounded number is
kept (least recently used go first), so memory stays flat however far one scrolls.

A live refresh re-reads the count and the pages the views need on a worker (what each
view shows and half a page either side, its current row, its selected rows: see
``views_need``) and swaps them in with inserts/removals at the end plus dataChanged for
the pages that changed, never a reset, so the views' keepers (``ViewKeeper``) put
selection, current row and scroll back by key. Other pages are dropped: a paint there asks
for them again. Refreshes asked for while writes stream in are coalesced (the next starts
``REFRESH_GAP_MS`` after the last ended at the earliest, and the last write always shows),
so a busy agent costs the window a few page reads a second, not a read of every page in
memory per write.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

import shiboken6
from PySide6.QtCore import QModelIndex, QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QTableView

from ltm_desktop.gui.models.base import NEVER_ANSWERED, AnyIndex, RowTableModel
from ltm_desktop.gui.models.paged import (
    PAGE_SIZE,
    Fetcher,
    Pages,
    read_pages,
    runs,
    view_needs,
    with_neighbours,
)
from ltm_desktop.gui.tasks import TaskRunner

MAX_PAGES = 25  # pages kept in memory (5,000 rows): several screens either way of the view
REFRESH_GAP_MS = 200  # a live refresh starts at least this long after the last one ended
PLACEHOLDER = "…"

# a refresh's answer: the count, the pages read, those to keep (None: what the views need
# once their keepers are done), those needed when it started
Refreshed = tuple[int, Pages, set[int] | None, set[int]]


class SparseTableModel(RowTableModel):
    """Rows of one query, addressed by position; subclasses build the ``Fetcher``.

    Signals:
        loading_changed(bool): the count and first page are being read (True) or arrived.
        loaded(): the first page of the current query is in.
        total_changed(int): the query's row count.
        load_failed(object): the exception a read raised.
    """

    loading_changed = Signal(bool)
    loaded = Signal()
    total_changed = Signal(int)
    load_failed = Signal(object)

    def __init__(
        self,
        runner: TaskRunner,
        parent: QObject | None = None,
        *,
        page_size: int = PAGE_SIZE,
        max_pages: int = MAX_PAGES,
        refresh_gap_ms: int = REFRESH_GAP_MS,
    ) -> None:
        super().__init__(parent)
        self._runner = runner
        self._page_size = page_size
        self._max_pages = max(2, max_pages)
        self._fetcher: Fetcher | None = None
        self._total = 0
        self._known_total: int | None = None
        self._pages: OrderedDict[int, list[Any]] = OrderedDict()
        self._wanted: set[int] = set()
        self._in_flight: set[int] = set()
        self._generation = 0  # a new query
        self._version = 0  # a refresh swapped the pages: older page reads are stale
        self._loading = False
        self._refresh_pending = False
        self._refresh_again = False
        self._refresh_gap = max(0, refresh_gap_ms) / 1000
        self._refreshed_at = -float("inf")  # when the last refresh was swapped in (monotonic)
        self._refresh_due = QTimer(self)
        self._refresh_due.setSingleShot(True)
        self._refresh_due.timeout.connect(self._start_refresh)
        self._views: list[QTableView] = []
        self._key = f"sparse-{id(self)}"
        self._dispatch = QTimer(self)
        self._dispatch.setSingleShot(True)
        self._dispatch.setInterval(0)  # after the paint that asked: one batch per paint
        self._dispatch.timeout.connect(self._request_wanted)

    def make_fetcher(self) -> Fetcher | None:
        """The fetcher for the current query (None: nothing to show)."""
        raise NotImplementedError

    # -- state ------------------------------------------------------------

    @property
    def total(self) -> int | None:
        return self._known_total

    def is_loading(self) -> bool:
        return self._loading

    def is_settled(self) -> bool:
        """No count, page or refresh in flight or asked for (tests and benchmarks wait on it)."""
        return not (
            self._loading
            or self._refresh_pending
            or self._refresh_due.isActive()
            or self._in_flight
            or self._wanted
        )

    def cached_pages(self) -> list[int]:
        """The page numbers held in memory (bounded by ``max_pages``)."""
        return sorted(self._pages)

    # -- the views --------------------------------------------------------

    def watch_view(self, view: QTableView) -> None:
        """``view`` shows this model: a live refresh re-reads what it needs (``pages_in_use``)
        and keeps only that. Without a view a refresh re-reads every page in memory."""
        if view not in self._views:
            self._views.append(view)

    def pages_in_use(self) -> set[int] | None:
        """The pages the views need (see ``views_need``); None when no view watches."""
        need = self.views_need()
        return None if need is None else need[0]

    def views_need(self) -> tuple[set[int], set[int]] | None:
        """The pages the views need kept after a refresh, and those it reads to find their
        rows again (``paged.view_needs``); None when no view watches the model."""
        self._views = [v for v in self._views if shiboken6.isValid(v)]
        if not self._views:
            return None
        keep, read = set[int](), set[int]()
        for view in self._views:
            if view.model() is self:
                kept, wanted = view_needs(view, self._page_size, self._total, self._pages)
                keep |= kept
                read |= wanted
        return keep, read

    def _set_loading(self, loading: bool) -> None:
        if loading != self._loading:
            self._loading = loading
            self.loading_changed.emit(loading)

    # -- Qt API -----------------------------------------------------------

    def rowCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008 - Qt signature
        return 0 if parent.isValid() else self._total

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role in NEVER_ANSWERED or not index.isValid():
            return None
        row = self._cached(index.row())
        if row is not None:
            return self.row_data(row, index.column(), role)
        if role == Qt.ItemDataRole.DisplayRole and index.column() == 0:
            return PLACEHOLDER
        return None

    # -- rows -------------------------------------------------------------

    def _cached(self, row: int, *, want: bool = True) -> Any:
        """The row at ``row`` if its page is in memory; otherwise ask for the page."""
        if not 0 <= row < self._total:
            return None
        page_no, at = divmod(row, self._page_size)
        page = self._pages.get(page_no)
        if page is None:
            if want:
                self._want(page_no)
            return None
        self._pages.move_to_end(page_no)
        return page[at] if at < len(page) else None

    def rows(self) -> list[Any]:
        """The rows in memory, in order (all of them for a list within the bound)."""
        return [r for page_no in sorted(self._pages) for r in self._pages[page_no]]

    def loaded_spans(self, top: int, bottom: int) -> list[tuple[int, int]]:
        """The (first, last) rows between ``top`` and ``bottom`` whose pages are in memory."""
        spans: list[tuple[int, int]] = []
        size = self._page_size
        for page_no in range(max(0, top) // size, min(bottom, self._total - 1) // size + 1):
            page = self._pages.get(page_no)
            if not page:
                continue
            first = max(top, page_no * size)
            last = min(bottom, page_no * size + len(page) - 1)
            if first > last:
                continue
            if spans and spans[-1][1] + 1 == first:
                spans[-1] = (spans[-1][0], last)
            else:
                spans.append((first, last))
        return spans

    def row_at(self, row: int) -> Any:
        return self._cached(row, want=False)

    def row_of(self, key: Any) -> int:
        """The position of the row with ``key`` among the pages in memory, or -1."""
        if self._positions is None:
            self._positions = {
                self.key(r): page_no * self._page_size + i
                for page_no, page in self._pages.items()
                for i, r in enumerate(page)
            }
        return self._positions.get(key, -1)

    # -- the count and the first page -------------------------------------

    def reload(self) -> None:
        """Run the current query from the start (new scope, sort or filter)."""
        self._generation += 1
        self._refresh_pending = self._refresh_again = False
        self._refresh_due.stop()
        self._wanted.clear()
        self._in_flight.clear()
        self._runner.cancel(self._key + ":refresh")
        fetcher = self._fetcher = self.make_fetcher()
        if fetcher is None:
            self._apply_first(self._generation, (0, []))
            return
        self._set_loading(True)
        generation, size = self._generation, self._page_size

        def first() -> tuple[int, list[Any]]:
            total = fetcher.total()
            rows, _more = fetcher.page(0, size, None)
            return (len(rows) if total is None else total), rows

        self._runner.run(
            first,
            lambda result: self._apply_first(generation, result),
            lambda exc: self._on_failed(generation, exc),
            key=self._key + ":first",
        )

    def _apply_first(self, generation: int, result: tuple[int, list[Any]]) -> None:
        if generation != self._generation:
            return
        total, rows = result
        self._version += 1
        self.beginResetModel()
        self._total = self._known_total = max(total, len(rows))
        self._pages = OrderedDict({0: rows} if rows else {})
        self._positions = None
        self.endResetModel()
        self._set_loading(False)
        self.total_changed.emit(self._total)
        self.loaded.emit()
        if self._refresh_again:  # a change arrived while the first page was being read
            self.refresh()

    def _on_failed(self, generation: int, exc: BaseException) -> None:
        if generation == self._generation:
            self._refresh_pending = False
            self._set_loading(False)
            self.load_failed.emit(exc)

    # -- pages on demand --------------------------------------------------

    def _want(self, page_no: int) -> None:
        if page_no in self._in_flight or self._loading or self._fetcher is None:
            return
        self._wanted.add(page_no)
        if not self._dispatch.isActive():
            self._dispatch.start()

    def _request_wanted(self) -> None:
        """Read the pages the last paints asked for, each on a worker."""
        wanted, self._wanted = self._wanted, set()
        fetcher, generation, version = self._fetcher, self._generation, self._version
        if fetcher is None or self._loading:
            return
        for page_no in sorted(wanted - self._pages.keys() - self._in_flight):
            self._in_flight.add(page_no)
            offset, size = page_no * self._page_size, self._page_size
            self._runner.run(
                lambda offset=offset, size=size: fetcher.page(offset, size, None)[0],  # type: ignore[misc]
                lambda rows, p=page_no: self._on_page(generation, version, p, rows),  # type: ignore[misc]
                lambda exc, p=page_no: self._on_page_failed(generation, p, exc),  # type: ignore[misc]
                key=f"{self._key}:page:{page_no}",
            )

    def _on_page(self, generation: int, version: int, page_no: int, rows: list[Any]) -> None:
        if generation != self._generation:
            return
        self._in_flight.discard(page_no)
        if version == self._version:  # else a refresh moved rows meanwhile: repaint asks again
            self._pages[page_no] = rows
            self._positions = None
            self._evict(keep=page_no)
        self._page_changed(page_no)
        if len(rows) < self._page_size and page_no * self._page_size + len(rows) < self._total:
            self.refresh()  # the list shrank under us: the count is out of date

    def _on_page_failed(self, generation: int, page_no: int, exc: BaseException) -> None:
        if generation == self._generation:
            self._in_flight.discard(page_no)
            self.load_failed.emit(exc)

    def _page_changed(self, page_no: int) -> None:
        self._pages_changed([page_no])

    def _evict(self, keep: int) -> None:
        """Drop the least recently read pages beyond the bound."""
        while len(self._pages) > self._max_pages:
            oldest = next(iter(self._pages))
            if oldest == keep:
                self._pages.move_to_end(oldest)
                continue
            del self._pages[oldest]
            self._positions = None

    # -- live refresh -----------------------------------------------------

    def refresh(self) -> None:
        """Re-read the count and the pages in use; swap them in keeping the view's place.

        At most one refresh runs at a time, and the next starts ``refresh_gap_ms`` after
        the last one ended at the earliest: changes streaming in are coalesced, and the
        refresh after the last of them always runs."""
        if self._fetcher is None:
            return
        if self._loading or self._refresh_pending:
            self._refresh_again = True
            return
        if self._refresh_due.isActive():
            return  # the coming refresh reads this change too
        wait = self._refreshed_at + self._refresh_gap - time.monotonic()
        if wait > 0:
            self._refresh_due.start(max(1, round(wait * 1000)))
            return
        self._start_refresh()

    def _start_refresh(self) -> None:
        if self._fetcher is None or self._loading or self._refresh_pending:
            if self._fetcher is not None:
                self._refresh_again = True
            return
        self._refresh_again = False
        self._refresh_pending = True
        fetcher, generation, size = self._fetcher, self._generation, self._page_size
        need = self.views_need()
        keep: set[int] | None = None  # None: what the views need once the keeper is done
        if need is None:  # no view: the pages in memory, and where a write shifts their rows
            keep = set(self._pages) or {0}
            wanted, needed = with_neighbours(keep), keep
        else:  # what the views show and hold, and where a write may shift those rows
            needed, wanted = need

        def work() -> Refreshed:
            read = read_pages(fetcher, wanted, size)
            total = fetcher.total()
            if total is None:
                total = max((p * size + len(r) for p, r in read.items() if r), default=0)
            return total, read, keep, needed

        self._runner.run(
            work,
            lambda result: self._on_refreshed(generation, result),
            lambda exc: self._on_failed(generation, exc),
            key=self._key + ":refresh",
        )

    def _on_refreshed(self, generation: int, result: Refreshed) -> None:
        if generation != self._generation:
            return
        self._refresh_pending = False
        total, read, keep, needed = result
        self.refresh_started.emit()
        self._version += 1  # page reads started before this are stale
        old = self._total
        if total > old:
            self.beginInsertRows(QModelIndex(), old, total - 1)
            self._total = total
            self.endInsertRows()
        elif total < old:
            self.beginRemoveRows(QModelIndex(), total, old - 1)
            self._total = total
            self.endRemoveRows()
        changed = set(self._pages) | set(read)
        # every page read is in for the keeper to find rows by key (a neighbouring page
        # holds the rows a write shifted out of a page); what no view needs goes after.
        # The pages needed come last: should the bound bite, they go last.
        self._pages = OrderedDict(
            (p, read[p])
            for p in sorted(read, key=lambda p: (p in needed, p))
            if read[p] and p * self._page_size < total
        )
        self._positions = None
        self._pages_changed(changed)
        if total != old or self._known_total != total:
            self._known_total = total
            self.total_changed.emit(total)
        self.refresh_finished.emit()
        if keep is None:
            keep = self.pages_in_use()
        if keep is not None:
            dropped = set(self._pages) - keep
            for page_no in dropped:
                del self._pages[page_no]
            if dropped:
                self._positions = None
                self._pages_changed(dropped)
        self._evict(keep=-1)
        self._refreshed_at = time.monotonic()
        if self._refresh_again:
            self.refresh()

    def _pages_changed(self, pages: Iterable[int]) -> None:
        """One dataChanged per run of consecutive pages (those within the list)."""
        size, columns = self._page_size, self.columnCount()
        for start, count in runs(list(pages)):
            first, last = start * size, min(self._total, (start + count) * size) - 1
            if last >= first:
                self.dataChanged.emit(self.index(first, 0), self.index(last, columns - 1))

"""A random-access row model: the true row count up front, pages read on demand.

``rowCount`` is the query's count (one cheap ``count(*)``), so the scroll bar is
the whole list from the first paint and End / Ctrl+End / dragging to the bottom
ask for the last page only. A cell whose page is not in yet answers a placeholder
and asks for that page; pages are read on the task runner, a bounded number is
kept (least recently used go first), so memory stays flat however far one scrolls.

A live refresh re-reads the count and the pages in memory on a worker and swaps
them in with inserts/removals at the end plus one dataChanged, never a reset, so
the views' keepers (``ViewKeeper``) put selection, current row and scroll back by key.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from PySide6.QtCore import QModelIndex, QObject, Qt, QTimer, Signal

from ltm_desktop.gui.models.base import NEVER_ANSWERED, AnyIndex, RowTableModel
from ltm_desktop.gui.models.paged import PAGE_SIZE, Fetcher
from ltm_desktop.gui.tasks import TaskRunner

MAX_PAGES = 25  # pages kept in memory (5,000 rows): several screens either way of the view
PLACEHOLDER = "…"

Pages = dict[int, list[Any]]


def runs(pages: list[int]) -> list[tuple[int, int]]:
    """Consecutive page numbers as (first page, page count): one query per run."""
    found: list[tuple[int, int]] = []
    for page in sorted(pages):
        if found and found[-1][0] + found[-1][1] == page:
            found[-1] = (found[-1][0], found[-1][1] + 1)
        else:
            found.append((page, 1))
    return found


def read_pages(fetcher: Fetcher, pages: list[int], page_size: int) -> Pages:
    """Read ``pages`` again (worker side), a run of consecutive ones per query, each run
    with a page either side: rows a write shifted out of a page are still found by key."""
    read: Pages = {}
    for start, length in runs(pages):
        first, count = max(0, start - 1), length + 1 + min(1, start)
        rows, _more = fetcher.page(first * page_size, count * page_size, None)
        for i in range(count):
            chunk = rows[i * page_size : (i + 1) * page_size]
            if chunk or i == 0:
                read[first + i] = chunk
    return read


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
        return not (self._loading or self._refresh_pending or self._in_flight or self._wanted)

    def cached_pages(self) -> list[int]:
        """The page numbers held in memory (bounded by ``max_pages``)."""
        return sorted(self._pages)

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
        first = page_no * self._page_size
        last = min(self._total, first + self._page_size) - 1
        if last >= first:
            self.dataChanged.emit(self.index(first, 0), self.index(last, self.columnCount() - 1))

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
        """Re-read the count and the pages in memory; swap them in keeping the view's place."""
        if self._fetcher is None:
            return
        if self._loading or self._refresh_pending:
            self._refresh_again = True
            return
        self._refresh_again = False
        self._refresh_pending = True
        fetcher, generation, size = self._fetcher, self._generation, self._page_size
        pages = list(self._pages) or [0]

        def work() -> tuple[int, Pages]:
            read = read_pages(fetcher, pages, size)
            total = fetcher.total()
            if total is None:
                total = max((p * size + len(r) for p, r in read.items() if r), default=0)
            return total, read

        self._runner.run(
            work,
            lambda result: self._on_refreshed(generation, result),
            lambda exc: self._on_failed(generation, exc),
            key=self._key + ":refresh",
        )

    def _on_refreshed(self, generation: int, result: tuple[int, Pages]) -> None:
        if generation != self._generation:
            return
        self._refresh_pending = False
        total, read = result
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
        self._pages = OrderedDict(
            (p, rows) for p, rows in read.items() if rows and p * self._page_size < total
        )
        self._positions = None
        self._evict(keep=-1)
        if total:
            self.dataChanged.emit(self.index(0, 0), self.index(total - 1, self.columnCount() - 1))
        if total != old or self._known_total != total:
            self._known_total = total
            self.total_changed.emit(total)
        self.refresh_finished.emit()
        if self._refresh_again:
            self.refresh()

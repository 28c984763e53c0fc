"""A row model that pages from the service on the task runner (canFetchMore/fetchMore).

Only what the view has scrolled to is loaded. Sorting and filtering mean a new
query (a new ``Fetcher``), never a proxy over loaded rows. A live refresh re-reads
the loaded range on a worker, diffs it there, and patches the rows in place so
selection and scroll position survive.
"""

from __future__ import annotations

from typing import Any, Protocol

from PySide6.QtCore import QModelIndex, QObject, Signal

from ltm_desktop.gui.models.base import AnyIndex, Opcodes, RowTableModel, diff_keys
from ltm_desktop.gui.tasks import TaskRunner

PAGE_SIZE = 200
MAX_PAGE = 5_000
READ_CHUNK = 10_000


class Fetcher(Protocol):
    """One query, run on a worker thread; it must not touch Qt objects."""

    def page(self, offset: int, limit: int, last: Any | None) -> tuple[list[Any], bool]:
        """Rows from ``offset`` (``last`` is the row before it); and whether more may follow."""
        ...

    def total(self) -> int | None:
        """How many rows the query has (None when it cannot say cheaply)."""
        ...


FREE_SLICE = 1_000  # rows freed at a time off the UI thread (a 100k list took 50 ms at once)


def free_off_the_ui_thread(runner: TaskRunner, rows: list[Any]) -> None:
    """Drop a long list of rows on a worker, a slice at a time: between slices the UI
    thread can take the GIL, where freeing it all at once held it for tens of ms."""
    if len(rows) <= FREE_SLICE:
        return  # cheap enough where it is

    def free() -> None:
        while rows:
            del rows[-FREE_SLICE:]

    runner.run(free)


def read_prefix(fetcher: Fetcher, count: int) -> tuple[list[Any], bool]:
    """The first ``count`` rows (at least one page), read in chunks."""
    rows: list[Any] = []
    more = True
    while more and len(rows) < max(count, PAGE_SIZE):
        want = min(READ_CHUNK, max(count, PAGE_SIZE) - len(rows))
        chunk, more = fetcher.page(len(rows), want, rows[-1] if rows else None)
        rows += chunk
    return rows, more


class PagedTableModel(RowTableModel):
    """Pages rows in from a ``Fetcher``; subclasses build the fetcher for their query.

    Signals:
        loading_changed(bool): a first page is being loaded (True) or has arrived.
        loaded(): the first page of the current query is in.
        total_changed(int): the query's row count, when known.
        load_failed(object): the exception a load raised.
    """

    loading_changed = Signal(bool)
    loaded = Signal()
    total_changed = Signal(int)
    load_failed = Signal(object)

    def __init__(self, runner: TaskRunner, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._runner = runner
        self._fetcher: Fetcher | None = None
        self._generation = 0
        self._version = 0
        self._more = False
        self._total: int | None = None
        self._page_pending = False
        self._refresh_pending = False
        self._refresh_again = False
        self._loading = False
        self._key = f"paged-{id(self)}"

    def make_fetcher(self) -> Fetcher | None:
        """The fetcher for the current query (None: nothing to show)."""
        raise NotImplementedError

    # -- state ------------------------------------------------------------

    @property
    def total(self) -> int | None:
        return self._total

    def is_loading(self) -> bool:
        return self._loading

    def is_settled(self) -> bool:
        """No load, page or refresh in flight (tests and benchmarks wait for this)."""
        return not (self._loading or self._page_pending or self._refresh_pending)

    def _set_loading(self, loading: bool) -> None:
        if loading != self._loading:
            self._loading = loading
            self.loading_changed.emit(loading)

    def reset_rows(self, rows: Any) -> None:
        old = self._rows
        super().reset_rows(rows)
        free_off_the_ui_thread(self._runner, old)

    # -- first page -------------------------------------------------------

    def reload(self) -> None:
        """Run the current query from the start (new scope, sort or filter)."""
        self._generation += 1
        self._page_pending = self._refresh_pending = self._refresh_again = False
        self._runner.cancel(self._key + ":page")
        self._runner.cancel(self._key + ":refresh")
        fetcher = self._fetcher = self.make_fetcher()
        if fetcher is None:
            self._more, self._total = False, 0
            self._set_loading(False)
            self.reset_rows([])
            self.total_changed.emit(0)
            self.loaded.emit()
            return
        self._set_loading(True)
        generation = self._generation

        def first() -> tuple[int | None, list[Any], bool]:
            total = fetcher.total()
            rows, more = fetcher.page(0, PAGE_SIZE, None)
            return total, rows, more

        self._runner.run(
            first,
            lambda result: self._on_first(generation, result),
            lambda exc: self._on_failed(generation, exc),
            key=self._key + ":first",
        )

    def _on_first(self, generation: int, result: tuple[int | None, list[Any], bool]) -> None:
        if generation != self._generation:
            return
        self._total, rows, self._more = result
        self._version += 1
        self.reset_rows(rows)
        self._set_loading(False)
        if self._total is not None:
            self.total_changed.emit(self._total)
        self.loaded.emit()
        if self._refresh_again:  # a change arrived while the first page was being read
            self.refresh()

    def _on_failed(self, generation: int, exc: BaseException) -> None:
        if generation == self._generation:
            self._page_pending = self._refresh_pending = False
            self._set_loading(False)
            self.load_failed.emit(exc)
            if self._refresh_again:
                self.refresh()

    # -- more pages -------------------------------------------------------

    def canFetchMore(self, parent: AnyIndex = QModelIndex()) -> bool:  # noqa: B008 - Qt signature
        return (
            not parent.isValid()
            and self._more
            and not self._loading
            and not self._page_pending
            and not self._refresh_pending
        )

    def fetchMore(self, parent: AnyIndex = QModelIndex()) -> None:  # noqa: B008 - Qt signature
        if not self.canFetchMore(parent) or self._fetcher is None:
            return
        self._page_pending = True
        fetcher, generation, offset = self._fetcher, self._generation, len(self._rows)
        last = self._rows[-1] if self._rows else None
        limit = min(MAX_PAGE, max(PAGE_SIZE, offset))  # deeper pages grow: fewer OFFSET scans
        self._runner.run(
            lambda: fetcher.page(offset, limit, last),
            lambda result: self._on_page(generation, offset, result),
            lambda exc: self._on_failed(generation, exc),
            key=self._key + ":page",
        )

    def _on_page(self, generation: int, offset: int, result: tuple[list[Any], bool]) -> None:
        if generation != self._generation:
            return
        self._page_pending = False
        rows, more = result
        if offset == len(self._rows):
            known = {self.key(r) for r in self._rows[-PAGE_SIZE:]}
            fresh = [r for r in rows if self.key(r) not in known]  # rows shifted by a write
            self._more = more
            if fresh:
                first = len(self._rows)
                self.beginInsertRows(QModelIndex(), first, first + len(fresh) - 1)
                self._rows += fresh
                self._positions = None
                self._version += 1
                self.endInsertRows()
        if self._refresh_again:
            self.refresh()

    # -- live refresh -----------------------------------------------------

    def refresh(self) -> None:
        """Re-read the loaded rows and patch the differences in (keeps selection and scroll)."""
        if self._fetcher is None:
            return
        if self._loading or self._page_pending or self._refresh_pending:
            self._refresh_again = True
            return
        self._refresh_again = False
        self._refresh_pending = True
        fetcher, generation, version = self._fetcher, self._generation, self._version
        keys = [self.key(r) for r in self._rows]
        key = self.key

        def work() -> tuple[int | None, list[Any], bool, Opcodes]:
            total = fetcher.total()
            rows, more = read_prefix(fetcher, len(keys))
            return total, rows, more, diff_keys(keys, [key(r) for r in rows])

        self._runner.run(
            work,
            lambda result: self._on_refreshed(generation, version, result),
            lambda exc: self._on_failed(generation, exc),
            key=self._key + ":refresh",
        )

    def _on_refreshed(
        self, generation: int, version: int, result: tuple[int | None, list[Any], bool, Opcodes]
    ) -> None:
        if generation != self._generation:
            return
        self._refresh_pending = False
        if version != self._version:  # rows moved on meanwhile: diff again
            self.refresh()
            return
        total, rows, more, opcodes = result
        self._more = more
        self._version += 1
        self.set_rows(rows, opcodes)
        if total is not None and total != self._total:
            self._total = total
            self.total_changed.emit(total)
        elif total is None:
            self._total = None
        if self._refresh_again:
            self.refresh()

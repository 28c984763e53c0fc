"""What every paged row model shares: the query a model pages through (``Fetcher``), the
size of a page, reading runs of pages, and which pages a view needs. ``SparseTableModel``
(``sparse.py``) is the one that pages."""

from __future__ import annotations

from collections.abc import Container, Iterable
from typing import Any, Protocol

from PySide6.QtWidgets import QTableView

PAGE_SIZE = 200

Pages = dict[int, list[Any]]


class Fetcher(Protocol):
    """One query, run on a worker thread; it must not touch Qt objects."""

    def page(self, offset: int, limit: int, last: Any | None) -> tuple[list[Any], bool]:
        """Rows from ``offset`` (``last`` is the row before it); and whether more may follow."""
        ...

    def total(self) -> int | None:
        """How many rows the query has (None when it cannot say cheaply)."""
        ...


def runs(pages: list[int]) -> list[tuple[int, int]]:
    """Consecutive page numbers as (first page, page count): one query per run."""
    found: list[tuple[int, int]] = []
    for page in sorted(pages):
        if found and found[-1][0] + found[-1][1] == page:
            found[-1] = (found[-1][0], found[-1][1] + 1)
        else:
            found.append((page, 1))
    return found


def with_neighbours(pages: Iterable[int]) -> set[int]:
    """``pages`` and a page either side of each: where a write shifts their rows to."""
    return {n for page in pages for n in (page - 1, page, page + 1) if n >= 0}


def read_pages(fetcher: Fetcher, pages: Iterable[int], page_size: int) -> Pages:
    """Read ``pages`` (worker side), a run of consecutive ones per query. A page past the
    end is left out, but for the first of a run, which comes back empty."""
    read: Pages = {}
    for first, count in runs(list(set(pages))):
        rows, _more = fetcher.page(first * page_size, count * page_size, None)
        for i in range(count):
            chunk = rows[i * page_size : (i + 1) * page_size]
            if chunk or i == 0:
                read[first + i] = chunk
    return read


def view_needs(
    view: QTableView, size: int, total: int, cached: Container[int]
) -> tuple[set[int], set[int]]:
    """The pages ``view`` needs kept after a live refresh, and those the refresh reads.

    Kept: the rows it shows and half a page either side (one past the end too, where rows
    a write appends land), its current row's page and the pages of the selected rows read
    so far (``cached``). Read: those, and the current and selected rows with half a page
    either side too, where a write may shift them to."""
    margin, keep, read = size // 2, set[int](), set[int]()

    def rows(first: int, last: int, into: set[int]) -> None:
        into.update(range(max(0, first) // size, max(0, last) // size + 1))

    top = max(0, view.rowAt(0))
    bottom = view.rowAt(view.viewport().height() - 1)
    if bottom < top:  # the list ends above the bottom (or has no height yet)
        bottom = top + margin
    rows(top - margin, bottom + margin, keep)
    current = view.currentIndex().row()
    if 0 <= current < total:
        keep.add(current // size)
        rows(current - margin, current + margin, read)
    selection = view.selectionModel().selection()
    for span in (selection.at(i) for i in range(selection.size())):
        for page_no in range(span.top() // size, span.bottom() // size + 1):
            if page_no in cached:  # placeholders are not selected memories
                keep.add(page_no)
                first = max(span.top(), page_no * size)
                last = min(span.bottom(), page_no * size + size - 1)
                rows(first - margin, last + margin, read)
    return keep, keep | read

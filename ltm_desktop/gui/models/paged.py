"""What every paged row model shares: the query a model pages through (``Fetcher``) and
the size of a page. ``SparseTableModel`` (``sparse.py``) is the one that pages."""

from __future__ import annotations

from typing import Any, Protocol

PAGE_SIZE = 200


class Fetcher(Protocol):
    """One query, run on a worker thread; it must not touch Qt objects."""

    def page(self, offset: int, limit: int, last: Any | None) -> tuple[list[Any], bool]:
        """Rows from ``offset`` (``last`` is the row before it); and whether more may follow."""
        ...

    def total(self) -> int | None:
        """How many rows the query has (None when it cannot say cheaply)."""
        ...

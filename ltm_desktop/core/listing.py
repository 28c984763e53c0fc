"""Checking how a caller pages through a scope, before any backend sees the query."""

from __future__ import annotations

from dataclasses import replace

from ltm_desktop.core.backend import LIST_ORDERS, MAX_PAGE
from ltm_desktop.core.errors import InvalidInput
from ltm_desktop.core.records import ListQuery
from ltm_desktop.core.rules import check_category, normalize_tag


def check_filters(query: ListQuery) -> ListQuery:
    """``query`` with its category checked and its tag normalized (what counts need)."""
    category = None if query.category is None else check_category(query.category)
    tag = None if query.tag is None else normalize_tag(query.tag)
    since = query.new_since
    if since is not None and (isinstance(since, bool) or not isinstance(since, int | float)):
        raise InvalidInput("new_since must be a time in seconds", "new_since")
    return replace(query, category=category, tag=tag)


def check_list_query(query: ListQuery) -> ListQuery:
    """``query`` with a known order, a page size the backends serve, and checked filters."""
    if query.order_by not in LIST_ORDERS:
        allowed = ", ".join(sorted(LIST_ORDERS))
        raise InvalidInput(f"order_by must be one of {allowed}", "order_by")
    if not 0 <= query.limit <= MAX_PAGE or query.offset < 0:
        raise InvalidInput(f"limit must be 0-{MAX_PAGE} and offset >= 0", "limit")
    return check_filters(query)


def check_page(limit: int, offset: int) -> None:
    """A page size the backends serve and an offset into a list (the history, observations):
    SQLite would read a negative limit as "no limit"."""
    if not 0 <= limit <= MAX_PAGE or offset < 0:
        raise InvalidInput(f"limit must be 0-{MAX_PAGE} and offset >= 0", "limit")

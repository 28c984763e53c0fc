"""The Overview's counts (core.overview_reads), grouped in SQLite (for SqliteStore).

A time's bucket is found by a binary search written as nested CASE expressions (about
log2(edges) comparisons a row), and every group is one integer key, so that SQLite sorts
one number a row: at 100,000 memories a pass is 40-70 ms where a GROUP BY on four CASE
columns took 190 ms. Every memory of a scope is counted, so the memories are read in
one scan in rowid order (an index on the scope would fetch each row at random, slower
when the scope is most of the file); the audit history is read from the first event of
the window on, found by a binary search on ``seq`` (times follow ``seq``, to within a day).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import TypeVar

from ltm_desktop.core.records import Category
from ltm_desktop.store.scoped_reader import ScopedReader

T = TypeVar("T")
CATEGORIES = tuple(Category)
CLOCK_SLACK = 86_400.0  # how far an event's time may run behind one with a lower seq


def bucket_sql(expr: str, edges: Sequence[float], params: list[object]) -> str:
    """SQL for how many of ``edges`` (ascending) are <= ``expr``; appends its parameters.

    ``expr`` is SQL of this module's own (column names), never a value: values are
    parameters.
    """

    def tree(lo: int, hi: int) -> str:
        if lo == hi:
            return str(lo)
        mid = (lo + hi) // 2
        params.append(edges[mid])
        above = tree(mid + 1, hi)  # its parameters come first in the text
        below = tree(lo, mid)
        return f"CASE WHEN {expr} >= ? THEN {above} ELSE {below} END"

    return tree(0, len(edges))


def _scope(pk: int | None, column: str, params: list[object]) -> str:
    if pk is None:
        return "1"
    params.append(pk)
    return f"{column} = ?"


def memory_timeline(
    conn: sqlite3.Connection,
    pk: int | None,
    edges: Sequence[float],
    stale_max_importance: int,
    stale_age: float,
) -> list[tuple[str, int, int | None, int | None, int]]:
    size = len(edges) + 2  # buckets 0..len(edges), and len(edges) + 1 for "never"
    never = size - 1
    params: list[object] = []
    category = "CASE m.category " + " ".join(
        f"WHEN '{c.value}' THEN {i}" for i, c in enumerate(CATEGORIES)
    )
    created = bucket_sql("m.created_at", edges, params)
    removed = bucket_sql("coalesce(m.disabled_at, m.updated_at)", edges, params)
    params.append(stale_max_importance)
    shifted = [edge - stale_age for edge in edges]  # stale from touched + age >= edge
    stale = bucket_sql("max(m.updated_at, coalesce(m.reviewed_at, 0))", shifted, params)
    where = _scope(pk, "m.project_pk", params)
    rows = conn.execute(
        f"SELECT ((({category} END) * {size} + {created}) * {size}"
        f" + CASE WHEN m.disabled = 0 THEN {never} ELSE {removed} END) * {size}"
        f" + CASE WHEN m.importance <= ? AND m.use_count = 0 THEN {stale} ELSE {never} END"
        f" AS k, count(*) FROM memories AS m NOT INDEXED WHERE {where} GROUP BY k",
        params,
    ).fetchall()
    found = []
    for key, count in rows:
        key, stale_at = divmod(int(key), size)
        key, removed_at = divmod(key, size)
        cat, created_at = divmod(key, size)
        found.append(
            (
                CATEGORIES[cat].value,
                created_at,
                None if removed_at == never else removed_at,
                None if stale_at == never else stale_at,
                int(count),
            )
        )
    return found


def use_grid(
    conn: sqlite3.Connection, pk: int | None, use_edges: Sequence[int]
) -> list[tuple[int, int, int, float | None]]:
    size = len(use_edges) + 1
    params: list[object] = []
    bucket = bucket_sql("m.use_count", use_edges, params)
    where = _scope(pk, "m.project_pk", params)
    rows = conn.execute(
        f"SELECT m.importance * {size} + {bucket} AS k, count(*), max(m.last_used_at)"
        f" FROM memories AS m NOT INDEXED WHERE {where} AND m.disabled = 0 GROUP BY k",
        params,
    ).fetchall()
    return [(int(k) // size, int(k) % size, int(n), last) for k, n, last in rows]


def first_seq_at(conn: sqlite3.Connection, since: float) -> int:
    """The lowest ``seq`` from which every event at or after ``since`` comes (give or take
    CLOCK_SLACK): a binary search on the rowid, about 20 lookups."""
    lo, hi = conn.execute(
        "SELECT coalesce(min(seq), 0), coalesce(max(seq), 0) FROM audit"
    ).fetchone()
    hi += 1
    while lo < hi:
        mid = (lo + hi) // 2
        row = conn.execute(
            "SELECT seq, at FROM audit WHERE seq >= ? ORDER BY seq LIMIT 1", (mid,)
        ).fetchone()
        if row is None or row[1] >= since - CLOCK_SLACK:
            hi = mid
        else:
            lo = row[0] + 1
    return int(lo)


def event_counts(
    conn: sqlite3.Connection, pk: int | None, edges: Sequence[float], removals: Sequence[str]
) -> list[tuple[str, int, bool, int]]:
    if not edges:
        return []
    params: list[object] = []
    bucket = bucket_sql("a.at", edges, params)
    marks = ", ".join("?" * len(removals)) or "NULL"
    params.extend(removals)
    where = _scope(pk, "a.project_pk", params)
    params += [first_seq_at(conn, edges[0]), edges[0]]
    rows = conn.execute(
        f"SELECT a.actor, ({bucket}) * 2 + (a.action IN ({marks})) AS k, count(*)"
        f" FROM audit AS a WHERE {where} AND a.seq >= ? AND a.at >= ? GROUP BY a.actor, k",
        params,
    ).fetchall()
    return [(str(actor), int(k) // 2, bool(int(k) % 2), int(n)) for actor, k, n in rows]


class OverviewQueries:
    """The Overview's counts (``core.overview.reads.OverviewReads``; its ``last_event_seq``
    is the audit history's, ``audit.reads``), of one scope or every scope (None)."""

    def __init__(self, reader: ScopedReader) -> None:
        self._reader = reader

    def _overview_read(
        self, project_id: str | None, read: Callable[[sqlite3.Connection, int | None], list[T]]
    ) -> list[T]:
        if project_id is None:
            return self._reader.read(lambda conn: read(conn, None))
        return self._reader.read_scope(project_id, read, [])

    def memory_timeline(
        self,
        project_id: str | None,
        edges: Sequence[float],
        stale_max_importance: int,
        stale_age: float,
    ) -> list[tuple[str, int, int | None, int | None, int]]:
        return self._overview_read(
            project_id,
            lambda c, pk: memory_timeline(c, pk, edges, stale_max_importance, stale_age),
        )

    def use_grid(
        self, project_id: str | None, use_edges: Sequence[int]
    ) -> list[tuple[int, int, int, float | None]]:
        return self._overview_read(project_id, lambda c, pk: use_grid(c, pk, use_edges))

    def event_counts(
        self, project_id: str | None, edges: Sequence[float], removals: Sequence[str]
    ) -> list[tuple[str, int, bool, int]]:
        return self._overview_read(project_id, lambda c, pk: event_counts(c, pk, edges, removals))

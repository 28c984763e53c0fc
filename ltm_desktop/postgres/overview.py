"""The Overview's counts (``core.overview.reads``), grouped in PostgreSQL (for
``PostgresStore``; SQLite's are ``store.overview_reads``).

A time's bucket is the number of edges at or below it: ``width_bucket(value, edges)``
with the edges as one array (a binary search of the same steps as SQLite's nested CASE
expressions, so the two agree even on edges out of order). A NULL value, which SQLite's
CASE sends to bucket 0, is bucket 0 here too. Rows come out in SQLite's order: by
category (in ``Category``'s order), then the buckets, "never" last; events by actor (in
code point order), bucket, then removals after the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from ltm_desktop.core.records import Category
from ltm_desktop.postgres.conn import Conn
from ltm_desktop.postgres.database import PgDatabase
from ltm_desktop.postgres.scopes import ScopeKeys

T = TypeVar("T")
CATEGORIES = tuple(Category)
# core.overview.reads' rows (an engine imports records and contracts, not the Overview)
TimelineRow = tuple[str, int, int | None, int | None, int]
UseRow = tuple[int, int, int, float | None]
EventRow = tuple[str, int, bool, int]


def bucket_sql(expr: str) -> str:
    """SQL for how many edges (the float8 array parameter it takes) are <= ``expr``.

    ``expr`` is SQL of this module's own (column names), never a value.
    """
    return f"coalesce(width_bucket(({expr})::float8, %s::float8[]), 0)"


def _edges(edges: Sequence[float]) -> list[float]:
    return [float(edge) for edge in edges]


def _scope(pk: int | None, column: str, params: list[Any]) -> str:
    if pk is None:
        return "true"
    params.append(pk)
    return f"{column} = %s"


def memory_timeline(
    conn: Conn,
    pk: int | None,
    edges: Sequence[float],
    stale_max_importance: int,
    stale_age: float,
) -> list[TimelineRow]:
    never = len(edges) + 1  # buckets 0..len(edges), and len(edges) + 1 for "never"
    category = "CASE m.category " + " ".join(
        f"WHEN '{c.value}' THEN {i}" for i, c in enumerate(CATEGORIES)
    )
    shifted = [edge - stale_age for edge in edges]  # stale from touched + age >= edge
    params: list[Any] = [
        _edges(edges),
        _edges(edges),
        stale_max_importance,
        _edges(shifted),
    ]
    where = _scope(pk, "m.project_pk", params)
    rows = conn.execute(
        f"SELECT {category} END AS c, {bucket_sql('m.created_at')} AS made,"
        f" CASE WHEN m.disabled = 0 THEN {never}"
        f" ELSE {bucket_sql('coalesce(m.disabled_at, m.updated_at)')} END AS gone,"
        " CASE WHEN m.importance <= %s AND m.use_count = 0"
        f" THEN {bucket_sql('GREATEST(m.updated_at, coalesce(m.reviewed_at, 0))')}"
        f" ELSE {never} END AS stale, count(*)"
        f" FROM memories AS m WHERE {where} GROUP BY c, made, gone, stale"
        " ORDER BY c, made, gone, stale",
        params,
    ).fetchall()
    return [
        (
            CATEGORIES[cat].value,
            int(created_at),
            None if removed_at == never else int(removed_at),
            None if stale_at == never else int(stale_at),
            int(count),
        )
        for cat, created_at, removed_at, stale_at, count in rows
    ]


def use_grid(conn: Conn, pk: int | None, use_edges: Sequence[int]) -> list[UseRow]:
    params: list[Any] = [_edges(use_edges)]
    where = _scope(pk, "m.project_pk", params)
    rows = conn.execute(
        f"SELECT m.importance, {bucket_sql('m.use_count')} AS used, count(*),"
        f" max(m.last_used_at) FROM memories AS m WHERE {where} AND m.disabled = 0"
        " GROUP BY m.importance, used ORDER BY m.importance, used",
        params,
    ).fetchall()
    return [(int(importance), int(used), int(n), last) for importance, used, n, last in rows]


def event_counts(
    conn: Conn, pk: int | None, edges: Sequence[float], removals: Sequence[str]
) -> list[EventRow]:
    """Every event at or after ``edges[0]`` (by ``audit_by_time``, or the scope's index):
    SQLite starts its scan at a ``seq`` found by a binary search, which gives the same
    events while the clock never ran back more than a day."""
    if not edges:
        return []
    params: list[Any] = [_edges(edges), list(removals)]
    where = _scope(pk, "a.project_pk", params)
    params.append(float(edges[0]))
    rows = conn.execute(
        f"SELECT a.actor, {bucket_sql('a.at')} AS b, a.action = ANY(%s::text[]) AS removal,"
        f" count(*) FROM audit AS a WHERE {where} AND a.at >= %s"
        ' GROUP BY a.actor, b, removal ORDER BY a.actor COLLATE "C", b, removal',
        params,
    ).fetchall()
    return [(str(actor), int(b), bool(removal), int(n)) for actor, b, removal, n in rows]


class PgOverview:
    """The Overview's counts (``core.overview.reads.OverviewReads``; its
    ``last_event_seq`` is the audit history's), of one scope or every scope (None); an
    unknown scope has none."""

    def __init__(self, db: PgDatabase, keys: ScopeKeys) -> None:
        self._db = db
        self._keys = keys

    def _overview_read(
        self, project_id: str | None, read: Callable[[Conn, int | None], list[T]]
    ) -> list[T]:
        def work(conn: Conn) -> list[T]:
            if project_id is None:
                return read(conn, None)
            pk = self._keys.pk(conn, project_id)
            return [] if pk is None else read(conn, pk)

        return self._db.read(work)

    def memory_timeline(
        self,
        project_id: str | None,
        edges: Sequence[float],
        stale_max_importance: int,
        stale_age: float,
    ) -> list[TimelineRow]:
        return self._overview_read(
            project_id,
            lambda c, pk: memory_timeline(c, pk, edges, stale_max_importance, stale_age),
        )

    def use_grid(self, project_id: str | None, use_edges: Sequence[int]) -> list[UseRow]:
        return self._overview_read(project_id, lambda c, pk: use_grid(c, pk, use_edges))

    def event_counts(
        self, project_id: str | None, edges: Sequence[float], removals: Sequence[str]
    ) -> list[EventRow]:
        return self._overview_read(project_id, lambda c, pk: event_counts(c, pk, edges, removals))

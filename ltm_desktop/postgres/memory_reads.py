"""Read-only queries on memories: pages, counts, precis and stale candidates, files named.

The same questions as SQLite's ``store.memory_reads``, in PostgreSQL's SQL. Every order
ends with the primary key, so paging is stable; a title sorts by ``lower(title)`` (SQLite's
``COLLATE NOCASE`` folds ASCII letters only: titles that differ only in the case of a
non-ASCII letter may sort differently on the two engines).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ltm_desktop.core.backend import MAX_PAGE
from ltm_desktop.core.records import ListQuery, Memory
from ltm_desktop.engine.precis_sql import top_by_level_params, top_by_level_sql
from ltm_desktop.engine.rows import memory_from_row
from ltm_desktop.postgres.conn import Conn
from ltm_desktop.postgres.rows import MEMORY_COLUMNS, MEMORY_FROM, narrowing

# ``core.backend.LIST_ORDERS``: what callers say -> trusted SQL. ``{dir}`` is the asked
# direction with NULL where SQLite puts it (smallest: first ascending, last descending;
# PostgreSQL's default is the other way round), so both engines page alike.
ORDERINGS = {
    "importance": "m.importance {dir}, m.updated_at {dir}, m.pk {dir}",
    "updated_at": "m.updated_at {dir}, m.pk {dir}",
    "created_at": "m.created_at {dir}, m.pk",
    "last_used_at": "m.last_used_at {dir}, m.pk",
    "use_count": "m.use_count {dir}, m.updated_at DESC, m.expires_at NULLS FIRST, m.pk",
    "title": "lower(m.title) {dir}, m.expires_at {dir}, m.pk {dir}",
    "category": "m.category {dir}, m.importance DESC, m.updated_at DESC, "
    "m.expires_at NULLS FIRST, m.pk",
    "source": "m.source {dir}, m.updated_at DESC, m.expires_at NULLS FIRST, m.pk",
    "disabled_at": "m.disabled_at {dir}, m.pk",
}
NOT_EXPIRED = "(m.expires_at IS NULL OR m.expires_at > %s)"
STALE = (
    "m.disabled = 0 AND m.importance <= %s AND m.use_count = 0 "
    "AND GREATEST(m.updated_at, coalesce(m.reviewed_at, 0)) < %s"
)


def _order(query: ListQuery) -> str:
    direction = "DESC NULLS LAST" if query.descending else "ASC NULLS FIRST"
    return ORDERINGS[query.order_by].format(dir=direction)


def _where(project_pk: int, query: ListQuery, now: float) -> tuple[str, list[Any]]:
    clauses = ["m.project_pk = %s"]
    params: list[Any] = [project_pk]
    if query.only_disabled:
        clauses.append("m.disabled = 1")
    elif not query.include_disabled:
        clauses.append("m.disabled = 0")
    if not query.include_expired:
        clauses.append(NOT_EXPIRED)
        params.append(now)
    category = None if query.category is None else str(query.category)  # core.listing checked
    narrowed, narrowed_params = narrowing("m", category, query.tag, query.new_since)
    return " AND ".join(clauses + narrowed), params + narrowed_params


def get_memories(conn: Conn, memory_ids: list[str]) -> list[Memory]:
    if not memory_ids:
        return []
    rows = conn.execute(
        f"SELECT {MEMORY_COLUMNS} FROM {MEMORY_FROM} WHERE m.id = ANY(%s)", (memory_ids,)
    ).fetchall()
    return [memory_from_row(row) for row in rows]


def get_memories_by_pk(
    conn: Conn, pks: list[int], project_pks: Sequence[int]
) -> list[tuple[int, Memory]]:
    """The memories of ``pks`` that are in one of the scopes ``project_pks``."""
    if not pks or not project_pks:
        return []
    rows = conn.execute(
        f"SELECT m.pk, {MEMORY_COLUMNS} FROM {MEMORY_FROM} "
        "WHERE m.pk = ANY(%s) AND m.project_pk = ANY(%s)",
        (pks, list(project_pks)),
    ).fetchall()
    return [(int(row[0]), memory_from_row(row[1:])) for row in rows]


def list_memories(conn: Conn, project_pk: int, query: ListQuery, now: float) -> list[Memory]:
    """A page in one of ORDERINGS; the core checked ``query`` (core.listing)."""
    where, params = _where(project_pk, query, now)
    rows = conn.execute(
        f"SELECT {MEMORY_COLUMNS} FROM {MEMORY_FROM} WHERE {where} "
        f"ORDER BY {_order(query)} LIMIT %s OFFSET %s",
        (*params, query.limit, query.offset),
    ).fetchall()
    return [memory_from_row(row) for row in rows]


def count_memories(conn: Conn, project_pk: int, query: ListQuery, now: float) -> int:
    where, params = _where(project_pk, query, now)
    row = conn.execute(f"SELECT count(*) FROM memories AS m WHERE {where}", params).fetchone()
    return int(row[0]) if row is not None else 0


def top_memories(
    conn: Conn, project_pks: Sequence[int], importances: Sequence[int], n: int, now: float
) -> list[Memory]:
    """The first ``n`` of each scope's level by use, then update, in one statement (what
    the precis draws on; index ``memories_by_heat``)."""
    pairs, params = top_by_level_params(project_pks, importances, n, now)
    if not pairs:
        return []
    rows = conn.execute(top_by_level_sql(len(pairs), "%s", "m.pk"), params).fetchall()
    return [memory_from_row(row) for row in rows]


def stale_memories(
    conn: Conn,
    project_pk: int,
    max_importance: int,
    cutoff: float,
    now: float,
    limit: int = MAX_PAGE,
) -> list[Memory]:
    rows = conn.execute(
        f"SELECT {MEMORY_COLUMNS} FROM {MEMORY_FROM} WHERE m.project_pk = %s AND {STALE} "
        f"AND {NOT_EXPIRED} ORDER BY m.updated_at ASC, m.pk LIMIT %s",
        (project_pk, max_importance, cutoff, now, limit),
    ).fetchall()
    return [memory_from_row(row) for row in rows]


def memories_naming(
    conn: Conn, project_pks: Sequence[int], path: str | None, limit: int, now: float
) -> list[Memory]:
    """Active, unexpired memories of the scopes naming ``path`` (None: any file)."""
    if not project_pks:
        return []
    named = (
        "SELECT memory_pk FROM memory_files WHERE path = %s"
        if path is not None
        else "SELECT DISTINCT memory_pk FROM memory_files"
    )
    rows = conn.execute(
        f"SELECT {MEMORY_COLUMNS} FROM {MEMORY_FROM} WHERE m.pk IN ({named}) "
        f"AND m.project_pk = ANY(%s) AND m.disabled = 0 AND {NOT_EXPIRED} "
        "ORDER BY m.importance DESC, m.updated_at DESC, m.pk LIMIT %s",
        (*([path] if path is not None else []), list(project_pks), now, limit),
    ).fetchall()
    return [memory_from_row(row) for row in rows]


def scope_counts(
    conn: Conn, project_pk: int, max_importance: int, cutoff: float, now: float
) -> dict[str, int]:
    row = conn.execute(
        "SELECT "
        f"  count(*) FILTER (WHERE m.disabled = 0 AND {NOT_EXPIRED}), "
        "  count(*) FILTER (WHERE m.disabled = 1), "
        f"  count(*) FILTER (WHERE m.disabled = 0 AND NOT {NOT_EXPIRED}), "
        f"  count(*) FILTER (WHERE {STALE} AND {NOT_EXPIRED}) "
        "FROM memories AS m WHERE m.project_pk = %s",
        (now, now, max_importance, cutoff, now, project_pk),
    ).fetchone()
    observations = conn.execute(
        "SELECT count(*) FROM observations WHERE project_pk = %s AND disabled = 0", (project_pk,)
    ).fetchone()
    active, disabled, expired, stale = row if row is not None else (0, 0, 0, 0)
    return {
        "active": int(active),
        "disabled": int(disabled),
        "expired": int(expired),
        "stale": int(stale),
        "observations": int(observations[0]) if observations is not None else 0,
    }

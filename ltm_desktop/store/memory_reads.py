"""Read-only queries: pages, counts, precis candidates, stale candidates, history, stats."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from typing import Any

from ltm_desktop.core.backend import MAX_PAGE
from ltm_desktop.core.records import GUI_ACTOR, AuditEvent, ListQuery, Memory, Observation
from ltm_desktop.engine.precis_sql import top_by_level_params, top_by_level_sql
from ltm_desktop.store.rows import (
    AUDIT_COLUMNS,
    AUDIT_FROM,
    MEMORY_COLUMNS,
    MEMORY_FROM,
    OBSERVATION_COLUMNS,
    OBSERVATION_FROM,
    audit_from_row,
    memory_from_row,
    narrowing,
    observation_from_row,
)

# Sortable columns (``core.backend.LIST_ORDERS``): the key is what callers say, the
# value is trusted SQL. The memory list's orders follow an index term for term (its
# order breaks the last ties by rowid; the trailing expires_at is the index's own
# tie-break), so a page at any offset needs no sort; the others end with the primary
# key so paging is stable.
ORDERINGS = {
    "importance": "m.importance {dir}, m.updated_at {dir}",
    "updated_at": "m.updated_at {dir}",
    "created_at": "m.created_at {dir}, m.pk",
    "last_used_at": "m.last_used_at {dir}, m.pk",
    "use_count": "m.use_count {dir}, m.updated_at DESC, m.expires_at, m.pk",
    "title": "m.title COLLATE NOCASE {dir}, m.expires_at {dir}, m.pk {dir}",
    "category": "m.category {dir}, m.importance DESC, m.updated_at DESC, m.expires_at, m.pk",
    "source": "m.source {dir}, m.updated_at DESC, m.expires_at, m.pk",
    "disabled_at": "m.disabled_at {dir}, m.pk",
}
# The index a scope's unfiltered live list walks in each order (order_by, descending).
# Named, because without statistics (no ANALYZE) SQLite's planner took one of the
# others and sorted 100,000 rows per page; with a filter the planner chooses.
PAGE_INDEXES = {
    **{("importance", d): "memories_by_rank" for d in (True, False)},
    **{("updated_at", d): "memories_by_updated" for d in (True, False)},
    **{("title", d): "memories_by_title" for d in (True, False)},
    **{
        (order, d): f"memories_by_{order}_{'desc' if d else 'asc'}"
        for order in ("category", "use_count", "source")
        for d in (True, False)
    },
}
_NOT_EXPIRED = "(m.expires_at IS NULL OR m.expires_at > ?)"


def memories_naming(
    conn: sqlite3.Connection, project_pks: Sequence[int], path: str | None, limit: int, now: float
) -> list[Memory]:
    """Active, unexpired memories of the scopes naming ``path`` (None: any file)."""
    if not project_pks:
        return []
    # CROSS JOIN: SQLite loops over the named files first (by their primary key), not over
    # the scope's memories (its own choice, which reads every memory of the scope).
    named = (
        "SELECT memory_pk FROM memory_files WHERE path = ?"
        if path is not None
        else ("SELECT DISTINCT memory_pk FROM memory_files")
    )
    marks = ",".join("?" * len(project_pks))
    rows = conn.execute(
        f"SELECT {MEMORY_COLUMNS} FROM ({named}) AS f CROSS JOIN memories AS m "
        "JOIN projects AS p ON p.pk = m.project_pk "
        f"WHERE m.pk = f.memory_pk AND m.project_pk IN ({marks}) AND m.disabled = 0 "
        f"AND {_NOT_EXPIRED} ORDER BY m.importance DESC, m.updated_at DESC LIMIT ?",
        (*([path] if path is not None else []), *project_pks, now, limit),
    ).fetchall()
    return [memory_from_row(row) for row in rows]


def _where(project_pk: int, query: ListQuery, now: float) -> tuple[str, list[Any]]:
    clauses = ["m.project_pk = ?"]
    params: list[Any] = [project_pk]
    if query.only_disabled:
        clauses.append("m.disabled = 1")
    elif not query.include_disabled:
        clauses.append("m.disabled = 0")
    if not query.include_expired:
        clauses.append(_NOT_EXPIRED)
        params.append(now)
    category = None if query.category is None else str(query.category)  # core.listing checked
    narrowed, narrowed_params = narrowing("m", category, query.tag, query.new_since)
    return " AND ".join(clauses + narrowed), params + narrowed_params


IDS_PER_QUERY = 500  # well under SQLite's bound-variable limit, however it was built


def _id_chunks(ids: list[str]) -> Iterator[tuple[list[str], str]]:
    """``ids`` in slices small enough to bind, each with its ``?,?,…`` placeholders."""
    for start in range(0, len(ids), IDS_PER_QUERY):
        chunk = ids[start : start + IDS_PER_QUERY]
        yield chunk, ",".join("?" * len(chunk))


def get_memories(conn: sqlite3.Connection, memory_ids: list[str]) -> list[Memory]:
    found: list[Memory] = []
    for chunk, marks in _id_chunks(memory_ids):
        rows = conn.execute(
            f"SELECT {MEMORY_COLUMNS} FROM {MEMORY_FROM} WHERE m.id IN ({marks})", chunk
        ).fetchall()
        found += [memory_from_row(row) for row in rows]
    return found


def get_memories_by_pk(
    conn: sqlite3.Connection, pks: list[int], project_pks: Sequence[int]
) -> list[tuple[int, Memory]]:
    """The memories of ``pks`` that are in one of the scopes ``project_pks`` (an in-memory
    index that is behind never hands out another scope's memory)."""
    found: list[tuple[int, Memory]] = []
    scopes = ",".join(str(int(pk)) for pk in project_pks) or "NULL"
    for start in range(0, len(pks), IDS_PER_QUERY):
        chunk = pks[start : start + IDS_PER_QUERY]
        marks = ",".join("?" * len(chunk))
        rows = conn.execute(
            f"SELECT m.pk, {MEMORY_COLUMNS} FROM {MEMORY_FROM} WHERE m.pk IN ({marks}) "
            f"AND m.project_pk IN ({scopes})",
            chunk,
        ).fetchall()
        found += [(int(row[0]), memory_from_row(row[1:])) for row in rows]
    return found


def list_memories(
    conn: sqlite3.Connection, project_pk: int, query: ListQuery, now: float
) -> list[Memory]:
    """A page in one of ORDERINGS; the core checked ``query`` (core.listing)."""
    sql, params = list_sql(project_pk, query, now)
    return [memory_from_row(row) for row in conn.execute(sql, params).fetchall()]


def list_sql(project_pk: int, query: ListQuery, now: float) -> tuple[str, list[Any]]:
    """The SELECT behind ``list_memories`` and its parameters."""
    template = ORDERINGS[query.order_by]
    where, params = _where(project_pk, query, now)
    order = template.format(dir="DESC" if query.descending else "ASC")
    source = MEMORY_FROM
    index = PAGE_INDEXES.get((query.order_by, query.descending))
    plain = not (query.include_disabled or query.only_disabled or query.category or query.tag)
    if index is not None and plain and query.new_since is None:
        source = MEMORY_FROM.replace("memories AS m", f"memories AS m INDEXED BY {index}", 1)
    sql = f"SELECT {MEMORY_COLUMNS} FROM {source} WHERE {where} ORDER BY {order} LIMIT ? OFFSET ?"
    return sql, [*params, query.limit, query.offset]


def count_memories(conn: sqlite3.Connection, project_pk: int, query: ListQuery, now: float) -> int:
    where, params = _where(project_pk, query, now)
    return int(
        conn.execute(f"SELECT count(*) FROM memories AS m WHERE {where}", params).fetchone()[0]
    )


def top_memories(
    conn: sqlite3.Connection,
    project_pks: Sequence[int],
    importances: Sequence[int],
    n: int,
    now: float,
) -> list[Memory]:
    """The first ``n`` of each scope's level by use, then update (index
    ``memories_by_heat``), in one statement: what the precis draws on."""
    pairs, params = top_by_level_params(project_pks, importances, n, now)
    if not pairs:
        return []
    rows = conn.execute(top_by_level_sql(len(pairs), "?"), params).fetchall()
    return [memory_from_row(row) for row in rows]


def _stale_clause() -> str:
    return (
        "m.disabled = 0 AND m.importance <= ? AND m.use_count = 0 "
        "AND max(m.updated_at, coalesce(m.reviewed_at, 0)) < ?"
    )


def stale_memories(
    conn: sqlite3.Connection,
    project_pk: int,
    max_importance: int,
    cutoff: float,
    now: float,
    limit: int = MAX_PAGE,
) -> list[Memory]:
    rows = conn.execute(
        f"SELECT {MEMORY_COLUMNS} FROM {MEMORY_FROM} WHERE m.project_pk = ? AND "
        f"{_stale_clause()} AND {_NOT_EXPIRED} ORDER BY m.updated_at ASC LIMIT ?",
        (project_pk, max_importance, cutoff, now, limit),
    ).fetchall()
    return [memory_from_row(row) for row in rows]


def scope_counts(
    conn: sqlite3.Connection, project_pk: int, max_importance: int, cutoff: float, now: float
) -> dict[str, int]:
    row = conn.execute(
        "SELECT "
        f"  sum(m.disabled = 0 AND {_NOT_EXPIRED}), "
        "  sum(m.disabled = 1), "
        f"  sum(m.disabled = 0 AND NOT {_NOT_EXPIRED}), "
        f"  sum({_stale_clause()} AND {_NOT_EXPIRED}) "
        "FROM memories AS m WHERE m.project_pk = ?",
        (now, now, max_importance, cutoff, now, project_pk),
    ).fetchone()
    observations = conn.execute(
        "SELECT count(*) FROM observations WHERE project_pk = ? AND disabled = 0", (project_pk,)
    ).fetchone()[0]
    return {
        "active": int(row[0] or 0),
        "disabled": int(row[1] or 0),
        "expired": int(row[2] or 0),
        "stale": int(row[3] or 0),
        "observations": int(observations),
    }


def active_counts(conn: sqlite3.Connection, now: float) -> dict[int, int]:
    """Active memories per project pk, for the projects sidebar."""
    rows = conn.execute(
        f"SELECT m.project_pk, count(*) FROM memories AS m WHERE m.disabled = 0 "
        f"AND {_NOT_EXPIRED} GROUP BY m.project_pk",
        (now,),
    ).fetchall()
    return {row[0]: row[1] for row in rows}


def stale_counts(
    conn: sqlite3.Connection, max_importance: int, cutoff: float, now: float
) -> dict[int, int]:
    """Stale candidates per project pk, for the projects sidebar."""
    rows = conn.execute(
        f"SELECT m.project_pk, count(*) FROM memories AS m WHERE {_stale_clause()} "
        f"AND {_NOT_EXPIRED} GROUP BY m.project_pk",
        (max_importance, cutoff, now),
    ).fetchall()
    return {row[0]: row[1] for row in rows}


def new_counts(conn: sqlite3.Connection, since: float, now: float) -> dict[int, int]:
    """Active memories agents created after ``since``, per project pk (the sidebar)."""
    rows = conn.execute(
        "SELECT m.project_pk, count(*) FROM memories AS m WHERE m.disabled = 0 "
        f"AND m.created_at > ? AND m.source != ? AND {_NOT_EXPIRED} GROUP BY m.project_pk",
        (since, GUI_ACTOR, now),
    ).fetchall()
    return {row[0]: row[1] for row in rows}


def memory_history(conn: sqlite3.Connection, memory_id: str) -> list[AuditEvent]:
    rows = conn.execute(
        f"SELECT {AUDIT_COLUMNS} FROM {AUDIT_FROM} WHERE a.memory_id = ? ORDER BY a.seq",
        (memory_id,),
    ).fetchall()
    return [audit_from_row(row) for row in rows]


def _history_where(
    project_pk: int, actor: str | None, before_seq: int | None = None, person: str | None = None
) -> tuple[str, list[Any]]:
    """The scope's events (of one actor, of one person): a range of ``audit_by_project``
    or, with an actor, of ``audit_by_actor`` (a person: ``audit_by_person``)."""
    clauses, params = ["project_pk = ?"], [project_pk]
    if actor is not None:
        clauses.append("actor = ?")
        params.append(actor)  # type: ignore[arg-type]
    if person is not None:
        clauses.append("person = ?")
        params.append(person)  # type: ignore[arg-type]
    if before_seq is not None:
        clauses.append("seq < ?")
        params.append(before_seq)
    return " AND ".join(clauses), params


def project_history(
    conn: sqlite3.Connection,
    project_pk: int,
    *,
    limit: int,
    offset: int = 0,
    before_seq: int | None = None,
    actor: str | None = None,
    person: str | None = None,
) -> list[AuditEvent]:
    """Newest first; page with ``offset`` or ``before_seq`` (the smallest seq already seen).

    The page's seqs are found in the index alone, then only its events are read: a page
    400,000 events down skips index entries, not events (with their before and after)."""
    where, params = _history_where(project_pk, actor, before_seq, person)
    rows = conn.execute(
        f"SELECT {AUDIT_COLUMNS} FROM (SELECT seq FROM audit WHERE {where} "
        "ORDER BY seq DESC LIMIT ? OFFSET ?) AS page "
        "CROSS JOIN audit AS a ON a.seq = page.seq JOIN projects AS p ON p.pk = a.project_pk "
        "ORDER BY a.seq DESC",
        (*params, limit, offset),
    ).fetchall()
    return [audit_from_row(row) for row in rows]


def count_history(
    conn: sqlite3.Connection, project_pk: int, actor: str | None, person: str | None = None
) -> int:
    where, params = _history_where(project_pk, actor, None, person)
    return int(conn.execute(f"SELECT count(*) FROM audit WHERE {where}", params).fetchone()[0])


def history_actors(conn: sqlite3.Connection, project_pk: int) -> list[str]:
    """Everyone with an event in the scope, by name: one step of ``audit_by_actor`` per
    actor (however many events each has)."""
    rows = conn.execute(
        "WITH RECURSIVE who(actor) AS ("
        " SELECT (SELECT min(actor) FROM audit WHERE project_pk = ?1)"
        " UNION ALL SELECT (SELECT min(actor) FROM audit WHERE project_pk = ?1"
        " AND actor > who.actor) FROM who WHERE who.actor IS NOT NULL"
        ") SELECT actor FROM who WHERE actor IS NOT NULL",
        (project_pk,),
    ).fetchall()
    return [str(row[0]) for row in rows]


def history_people(conn: sqlite3.Connection, project_pk: int) -> list[str]:
    """Every person with an event in the scope, by name: one step of ``audit_by_person``
    per person (events from before people were recorded have none)."""
    rows = conn.execute(
        "WITH RECURSIVE who(person) AS ("
        " SELECT (SELECT min(person) FROM audit WHERE project_pk = ?1)"
        " UNION ALL SELECT (SELECT min(person) FROM audit WHERE project_pk = ?1"
        " AND person > who.person) FROM who WHERE who.person IS NOT NULL"
        ") SELECT person FROM who WHERE person IS NOT NULL",
        (project_pk,),
    ).fetchall()
    return [str(row[0]) for row in rows]


def last_events(
    conn: sqlite3.Connection, memory_ids: list[str], actions: list[str]
) -> list[AuditEvent]:
    """The newest event with one of ``actions`` for each memory (one query for a page)."""
    if not actions:
        return []
    kinds = ",".join("?" * len(actions))
    found: list[AuditEvent] = []
    for chunk, marks in _id_chunks(memory_ids):
        rows = conn.execute(
            f"SELECT {AUDIT_COLUMNS} FROM {AUDIT_FROM} WHERE a.seq IN ("
            f"SELECT max(seq) FROM audit WHERE memory_id IN ({marks}) AND action IN ({kinds}) "
            "GROUP BY memory_id)",
            (*chunk, *actions),
        ).fetchall()
        found += [audit_from_row(row) for row in rows]
    return found


def events_after(
    conn: sqlite3.Connection, seq: int, limit: int, columns: str = AUDIT_COLUMNS
) -> list[AuditEvent]:
    """Audit events newer than ``seq``, oldest first (to follow other processes' writes);
    ``columns``: ``AUDIT_COLUMNS`` as an older file has them (``FrozenHistory``)."""
    rows = conn.execute(
        f"SELECT {columns} FROM {AUDIT_FROM} WHERE a.seq > ? ORDER BY a.seq LIMIT ?",
        (seq, limit),
    ).fetchall()
    return [audit_from_row(row) for row in rows]


def _observations_where(project_pk: int, session: str | None) -> tuple[str, list[Any]]:
    """The scope's listed observations (of one session): a range of
    ``observations_listed`` or ``observations_by_session``, in time order."""
    if session is None:
        return "o.project_pk = ? AND o.disabled = 0", [project_pk]
    return "o.project_pk = ? AND o.disabled = 0 AND o.session_id = ?", [project_pk, session]


def list_observations(
    conn: sqlite3.Connection, project_pk: int, limit: int, offset: int, session: str | None = None
) -> list[Observation]:
    where, params = _observations_where(project_pk, session)
    rows = conn.execute(
        f"SELECT {OBSERVATION_COLUMNS} FROM {OBSERVATION_FROM} WHERE {where} "
        "ORDER BY o.created_at DESC, o.pk DESC LIMIT ? OFFSET ?",
        (*params, limit, offset),
    ).fetchall()
    return [observation_from_row(row) for row in rows]


def observation_sessions(conn: sqlite3.Connection, project_pk: int, limit: int) -> list[str]:
    """The sessions of the scope's listed observations, the one active last first: a step
    of ``observations_by_session`` per session, and one more for its newest observation
    (however many observations each session has)."""
    rows = conn.execute(
        "WITH RECURSIVE sessions(id) AS ("
        " SELECT (SELECT min(session_id) FROM observations WHERE project_pk = ?1 AND disabled = 0)"
        " UNION ALL SELECT (SELECT min(session_id) FROM observations WHERE project_pk = ?1"
        " AND disabled = 0 AND session_id > sessions.id) FROM sessions WHERE id IS NOT NULL"
        ") SELECT id, (SELECT max(created_at) FROM observations WHERE project_pk = ?1"
        " AND disabled = 0 AND session_id = sessions.id) AS last"
        " FROM sessions WHERE id IS NOT NULL ORDER BY last DESC, id LIMIT ?2",
        (project_pk, limit),
    ).fetchall()
    return [str(row[0]) for row in rows]


def count_observations(conn: sqlite3.Connection, project_pk: int, session: str | None) -> int:
    where, params = _observations_where(project_pk, session)
    return int(
        conn.execute(f"SELECT count(*) FROM observations AS o WHERE {where}", params).fetchone()[0]
    )

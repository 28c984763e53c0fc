"""Full-text search over memories and observations (FTS5, BM25).

Query shaping keeps natural-language questions cheap: stop words are dropped,
at most a handful of terms are kept, and every term must match first; only when
that finds too little is the query widened, first to memories with at least two
of the terms, then to any term. Earlier groups always rank above later ones,
each group by BM25.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from ltm_desktop.core.records import Memory, Observation, SearchFilter
from ltm_desktop.core.search.query import ParsedQuery
from ltm_desktop.engine.phrases import term_phrases
from ltm_desktop.engine.snippets import make_snippet
from ltm_desktop.store.fts.query import match_all, match_any, match_two
from ltm_desktop.store.rows import (
    MEMORY_COLUMNS,
    MEMORY_FROM,
    OBSERVATION_COLUMNS,
    memory_from_row,
    narrowing,
    observation_from_row,
)

EVERY_TERM, TWO_TERMS, ANY_TERM = 0, 1, 2  # search stages (core.backend.MemoryHit)
RANK_SLACK = 8  # extra ranked rows, so that a few expired ones rarely need a second query

_OBSERVATION_SQL = (
    f"SELECT s.score, {OBSERVATION_COLUMNS} "
    "FROM (SELECT rowid AS pk, -rank AS score FROM observation_fts "
    "WHERE observation_fts MATCH ? ORDER BY score DESC LIMIT ?) AS s "
    "JOIN observations AS o ON o.pk = s.pk JOIN projects AS p ON p.pk = o.project_pk "
    "ORDER BY s.score DESC"
)  # ranked as memories are (see _ranked); snippets are made in Python

MemoryHit = tuple[Memory, float, str, int]  # (memory, BM25, snippet, stage)
ObservationHit = tuple[Observation, float, str]
Ranked = tuple[Memory, float]


def _narrowing(where: SearchFilter | None) -> tuple[str, list[object]]:
    """SQL conditions on ``fm`` (the memories row) for the filter, as the list's."""
    if where is None:
        return "", []
    clauses, params = narrowing("fm", where.category, where.tag, where.new_since)
    return "".join(f" AND {c}" for c in clauses), params


def _ranked(
    conn: sqlite3.Connection,
    table: str,
    match: str,
    now: float,
    limit: int,
    where: SearchFilter | None = None,
) -> list[Ranked]:
    """The ``limit`` best active, unexpired memories of one scope's table.

    SQLite sorts by the score rather than FTS5 (``ORDER BY rank``): FTS5's own
    ordering scores every row, then works out BM25's document frequencies again
    for each row read back, which made the ranking statements 30-40% slower.
    Removed memories are not indexed, but expired ones stay until purged; they are
    dropped after ranking, so a scope with many of them needs a wider look. A filter's
    category and tag are checked on each match before ranking (a join by primary key).
    """
    want = limit + RANK_SLACK
    narrowing, params = _narrowing(where)
    ranked = (
        f"SELECT {table}.rowid AS pk, -{table}.rank AS score FROM {table} "
        f"JOIN memories AS fm ON fm.pk = {table}.rowid WHERE {table} MATCH ?{narrowing}"
        if narrowing
        else f"SELECT rowid AS pk, -rank AS score FROM {table} WHERE {table} MATCH ?"
    )
    expired_too = where is not None and where.include_expired
    while True:
        rows = conn.execute(
            f"SELECT s.score, m.disabled, m.expires_at, {MEMORY_COLUMNS} "
            f"FROM ({ranked} ORDER BY score DESC LIMIT ?) AS s "
            "LEFT JOIN memories AS m ON m.pk = s.pk "
            "LEFT JOIN projects AS p ON p.pk = m.project_pk ORDER BY s.score DESC",
            (match, *params, want),
        ).fetchall()
        kept = [row for row in rows if _active(row[1], row[2], now, expired_too)][:limit]
        if len(kept) >= limit or len(rows) < want:
            return [(memory_from_row(row[3:]), float(row[0])) for row in kept]
        want *= 4


def _active(disabled: int | None, expires_at: float | None, now: float, expired_too: bool) -> bool:
    """Not removed (None: no such memory row, which the index should never hold)."""
    return disabled == 0 and (expired_too or expires_at is None or expires_at > now)


def removed_matches(
    conn: sqlite3.Connection,
    project_pks: Sequence[int],
    query: ParsedQuery,
    limit: int,
    where: SearchFilter,
) -> list[MemoryHit]:
    """Removed memories of the scopes holding every term (the index leaves them out, so
    their text is scanned: the Trash of a scope, read through its index), newest first,
    scored 0 so they rank after the active ones."""
    if query.is_empty or not project_pks or limit <= 0:
        return []
    narrowing, params = _narrowing(where)
    haystack = "lower(fm.title || ' ' || fm.content)"
    found: list[str] = []
    for term in query.positive:
        found.append(f"instr({haystack}, ?) > 0")
        params.append(" ".join(term.words))
    for term in query.negative:
        found.append(f"instr({haystack}, ?) = 0")
        params.append(" ".join(term.words))
    marks = ",".join("?" * len(project_pks))
    rows = conn.execute(
        f"SELECT {MEMORY_COLUMNS} FROM {MEMORY_FROM} JOIN memories AS fm ON fm.pk = m.pk "
        f"WHERE m.project_pk IN ({marks}) AND m.disabled = 1{narrowing} "
        f"AND {' AND '.join(found)} ORDER BY m.updated_at DESC LIMIT ?",
        (*project_pks, *params, limit),
    ).fetchall()
    terms = [term_phrases(term) for term in query.positive]
    memories = [memory_from_row(row) for row in rows]
    return [(m, 0.0, make_snippet(m.content, terms), EVERY_TERM) for m in memories]


def search_memories(
    conn: sqlite3.Connection,
    tables: Sequence[str],
    query: ParsedQuery,
    limit: int,
    now: float,
    where: SearchFilter | None = None,
) -> list[MemoryHit]:
    """For each stage (0: every term, 1: two of them, 2: any), the best ``limit`` active,
    unexpired memories of each scope table not found by an earlier stage, by BM25 within
    the table; a later stage runs only while fewer than ``limit`` were found. Tables are
    not merged by score: BM25 of a small table (global) is not comparable with a large
    one's, so the core ranks across scopes (core.hybrid)."""
    if query.is_empty or not tables or limit <= 0:
        return []
    stages = [(EVERY_TERM, match_all(query))]
    if len(query.positive) >= 3:
        stages.append((TWO_TERMS, match_two(query)))  # cheaper and better than any-term
    if len(query.positive) >= 2:
        stages.append((ANY_TERM, match_any(query)))
    hits: list[MemoryHit] = []
    seen: set[str] = set()
    terms = [term_phrases(term) for term in query.positive]
    for stage, match in stages:
        for table in tables:
            ranked = _ranked(conn, table, match, now, limit + len(seen), where)
            fresh = [(m, score) for m, score in ranked if m.id not in seen][:limit]
            seen.update(m.id for m, _ in fresh)
            hits += [(m, score, make_snippet(m.content, terms), stage) for m, score in fresh]
        if len(seen) >= limit:
            break
    return hits


def search_observations(
    conn: sqlite3.Connection,
    project_pks: Sequence[int],
    query: ParsedQuery,
    limit: int,
) -> list[ObservationHit]:
    if query.is_empty or not project_pks or limit <= 0:
        return []
    found: list[tuple[Observation, float]] = []
    seen: set[str] = set()
    for match in (match_all(query, project_pks), match_any(query, project_pks)):
        for row in conn.execute(_OBSERVATION_SQL, (match, limit)).fetchall():
            observation = observation_from_row(row[1:])
            if observation.id not in seen:
                seen.add(observation.id)
                found.append((observation, float(row[0])))
        if len(found) >= limit or len(query.positive) < 2:
            break
    terms = [term_phrases(term) for term in query.positive]
    return [(o, score, make_snippet(o.narrative, terms)) for o, score in found[:limit]]


def near_duplicate_candidates(
    conn: sqlite3.Connection, project_pk: int, pks: list[int], band: tuple[float, float]
) -> list[tuple[str, str]]:
    """(id, content) of the active memories of the scope among ``pks`` (those whose token
    sets may hold enough of the new text's tokens: ``scope_index.TokenSets.holding``)
    whose token count is strictly inside ``band``."""
    low, high = band
    candidates: list[tuple[str, str]] = []
    for start in range(0, len(pks), 500):
        chunk = pks[start : start + 500]
        candidates += conn.execute(
            f"SELECT id, content FROM memories WHERE pk IN ({','.join('?' * len(chunk))}) "
            "AND project_pk = ? AND disabled = 0 AND token_count > ? AND token_count < ?",
            (*chunk, project_pk, low, high),
        ).fetchall()
    return [(row[0], row[1]) for row in candidates]

"""Full-text search on PostgreSQL: the same stages, terms and snippets as SQLite's
(``store/fts/search.py``), over each row's ``tsvector`` (``fts_document``) and its GIN index.

A query is compiled to a ``tsquery`` literal from the same phrases SQLite compiles to
(``engine.phrases``), its words folded as the documents' are, and for memories carrying
the scope searched (``fts_document``): a root or ``word*`` is a prefix (``'12:deploy':*``),
a phrase or a word joined by punctuation (``v2.1.0``, ``--force-with-lease``, a CJK word)
is adjacent words (``'12:v2' <-> '12:1' <-> '12:0'``).

Ranking differs from SQLite's BM25: ``ts_rank`` with the same column weights (title 4,
tags 2, text 1; observations: title 2, text 1) sums each positive term's occurrences
(``ranking``), with less for each repeat, and divides by 1 + log(the document's length).
It has no inverse document frequency: a rare word of the query weighs no more than a
common one, so where memories match different terms of a query, or a common word matches
many, the order (and so which ``limit`` are returned) can differ from SQLite's. Which
memories match, and in which stage, is the same.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations
from typing import Any

from ltm_desktop.core.backend import MemoryHit, ObservationHit
from ltm_desktop.core.records import Observation, SearchFilter
from ltm_desktop.core.search.query import ParsedQuery, Term
from ltm_desktop.engine.phrases import Phrase, term_phrases
from ltm_desktop.engine.rows import memory_from_row, observation_from_row
from ltm_desktop.engine.snippets import fold, make_snippet
from ltm_desktop.postgres.conn import Conn
from ltm_desktop.postgres.fts.document import lexeme, scoped
from ltm_desktop.postgres.rows import (
    MEMORY_COLUMNS,
    MEMORY_FROM,
    OBSERVATION_COLUMNS,
    OBSERVATION_FROM,
    narrowing,
)

EVERY_TERM, TWO_TERMS, ANY_TERM = 0, 1, 2  # search stages (core.backend.MemoryHit)
MEMORY_WEIGHTS = "{0.25, 0, 0.5, 1}"  # D (text), C, B (tags), A (title): 1 : 2 : 4
OBSERVATION_WEIGHTS = "{0.5, 0, 0, 1}"  # D (narrative), A (title): 1 : 2, as SQLite's
LENGTH_NORMALIZATION = 1  # divide by 1 + log(length): longer texts rank lower, as in BM25


# One statement per stage for every scope: each scope's best ``limit`` (a LATERAL
# subquery per scope, its query's words carrying the scope: ``fts_document``).
_MEMORY_SQL = """
SELECT s.score, m.pk, {columns}
FROM unnest(%s::bigint[], %s::tsquery[], %s::tsquery[]) WITH ORDINALITY
    AS scope (pk, query, ranking, n)
CROSS JOIN LATERAL (
    SELECT fm.pk, ts_rank('{weights}', fm.search, scope.ranking, {normalization}) AS score
    FROM memories AS fm
    WHERE fm.search @@ scope.query AND fm.project_pk = scope.pk AND fm.disabled = 0{alive}
        AND fm.pk <> ALL(%s::bigint[]){narrowing}
    ORDER BY score DESC, fm.pk DESC
    LIMIT %s
) AS s
JOIN memories AS m ON m.pk = s.pk JOIN projects AS p ON p.pk = m.project_pk
ORDER BY scope.n, s.score DESC, m.pk DESC
"""

_OBSERVATION_SQL = f"""
SELECT ts_rank('{OBSERVATION_WEIGHTS}', o.search, %s::tsquery, {LENGTH_NORMALIZATION}) AS score,
    {OBSERVATION_COLUMNS}
FROM {OBSERVATION_FROM}
WHERE o.project_pk = ANY(%s::bigint[]) AND o.search @@ %s::tsquery AND o.disabled = 0
ORDER BY score DESC, o.pk DESC
LIMIT %s
"""


# -- the query ---------------------------------------------------------------------------


def phrase_query(phrase: Phrase, scope: int | None = None) -> str:
    """Adjacent words, the last one a prefix if asked; ``scope``: a memory scope's words."""
    folded = [fold(word) for word in phrase.words]
    parts = [lexeme(w if scope is None else scoped(scope, w)) for w in folded]
    if phrase.prefix:
        parts[-1] += ":*"
    return parts[0] if len(parts) == 1 else "(" + " <-> ".join(parts) + ")"


def term_query(term: Term, scope: int | None = None) -> str:
    phrases = [phrase_query(phrase, scope) for phrase in term_phrases(term)]
    return phrases[0] if len(phrases) == 1 else "(" + " | ".join(phrases) + ")"


def _without(query: ParsedQuery, scope: int | None) -> str:
    negative = query.negative
    if not negative:
        return ""
    return " & !(" + " | ".join(term_query(t, scope) for t in negative) + ")"


def every_term(query: ParsedQuery, scope: int | None = None) -> str:
    body = " & ".join(term_query(t, scope) for t in query.positive)
    return f"({body}){_without(query, scope)}"


def any_term(query: ParsedQuery, scope: int | None = None) -> str:
    body = " | ".join(term_query(t, scope) for t in query.positive)
    return f"({body}){_without(query, scope)}"


def two_terms(query: ParsedQuery, scope: int | None = None) -> str:
    """At least two of the positive terms (between "every" and "any" when there are 3+)."""
    terms = [term_query(t, scope) for t in query.positive]
    if len(terms) < 2:
        return every_term(query, scope)
    pairs = " | ".join(f"({a} & {b})" for a, b in combinations(terms, 2))
    return f"({pairs}){_without(query, scope)}"


def ranking(query: ParsedQuery, scope: int | None = None) -> str:
    """What a hit is scored by: each positive term's occurrences, summed. Not the query
    that found it: ``ts_rank`` scores a query's ``&`` by the distances between its terms
    (taking in a ``!`` term, which is never there, so every hit scored 0)."""
    return " | ".join(term_query(t, scope) for t in query.positive)


def _stages(query: ParsedQuery) -> list[tuple[int, Callable[[ParsedQuery, int], str]]]:
    stages: list[tuple[int, Callable[[ParsedQuery, int], str]]] = [(EVERY_TERM, every_term)]
    if len(query.positive) >= 3:
        stages.append((TWO_TERMS, two_terms))
    if len(query.positive) >= 2:
        stages.append((ANY_TERM, any_term))
    return stages


# -- memories ----------------------------------------------------------------------------


def _narrowing(where: SearchFilter | None, alias: str) -> tuple[str, list[Any]]:
    if where is None:
        return "", []
    clauses, params = narrowing(alias, where.category, where.tag, where.new_since)
    return "".join(f" AND {c}" for c in clauses), params


def search_memories(
    conn: Conn,
    project_pks: list[int],
    query: ParsedQuery,
    limit: int,
    now: float,
    where: SearchFilter | None = None,
) -> list[MemoryHit]:
    """For each stage (0: every term, 1: two of them, 2: any), the best ``limit`` active,
    unexpired memories of each scope not found by an earlier stage, best first within the
    scope; a later stage runs only while fewer than ``limit`` were found. Removed ones
    holding every term follow when ``where`` asks for them (``removed_matches``)."""
    if query.is_empty or not project_pks or limit <= 0:
        return []
    narrowed, narrow_params = _narrowing(where, "fm")
    expired_too = where is not None and where.include_expired
    alive = "" if expired_too else " AND (fm.expires_at IS NULL OR fm.expires_at > %s)"
    sql = _MEMORY_SQL.format(
        columns=MEMORY_COLUMNS,
        weights=MEMORY_WEIGHTS,
        normalization=LENGTH_NORMALIZATION,
        alive=alive,
        narrowing=narrowed,
    )
    terms = [term_phrases(term) for term in query.positive]
    hits: list[MemoryHit] = []
    seen: list[int] = []
    rankings = [ranking(query, pk) for pk in project_pks]
    for stage, compiled in _stages(query):
        queries = [compiled(query, pk) for pk in project_pks]
        params: list[Any] = [project_pks, queries, rankings]
        params += [] if expired_too else [now]
        params += [seen, *narrow_params, limit]
        rows = conn.execute(sql, params, prepare=False).fetchall()
        for row in rows:
            memory = memory_from_row(row[2:])
            hits.append((memory, float(row[0]), make_snippet(memory.content, terms), stage))
            seen.append(int(row[1]))
        if len(hits) >= limit:
            break
    if where is not None and where.include_disabled:
        hits += removed_matches(conn, project_pks, query, limit, where)
    return hits


def removed_matches(
    conn: Conn,
    project_pks: Sequence[int],
    query: ParsedQuery,
    limit: int,
    where: SearchFilter,
) -> list[MemoryHit]:
    """Removed memories of the scopes holding every term in their text (a scan of the
    scopes' trash, as SQLite's: the words as typed, anywhere in the lower-cased title and
    text), newest first, scored 0 so they rank after the active ones."""
    if query.is_empty or not project_pks or limit <= 0:
        return []
    narrowed, params = _narrowing(where, "m")
    haystack = "lower(m.title || ' ' || m.content)"
    found: list[str] = []
    for term in query.positive:
        found.append(f"strpos({haystack}, %s) > 0")
        params.append(" ".join(term.words))
    for term in query.negative:
        found.append(f"strpos({haystack}, %s) = 0")
        params.append(" ".join(term.words))
    rows = conn.execute(
        f"SELECT {MEMORY_COLUMNS} FROM {MEMORY_FROM} "
        f"WHERE m.project_pk = ANY(%s::bigint[]) AND m.disabled = 1{narrowed} "
        f"AND {' AND '.join(found)} ORDER BY m.updated_at DESC, m.pk DESC LIMIT %s",
        (list(project_pks), *params, limit),
        prepare=False,
    ).fetchall()
    terms = [term_phrases(term) for term in query.positive]
    memories = [memory_from_row(row) for row in rows]
    return [(m, 0.0, make_snippet(m.content, terms), EVERY_TERM) for m in memories]


# -- observations ------------------------------------------------------------------------


def search_observations(
    conn: Conn, project_pks: list[int], query: ParsedQuery, limit: int
) -> list[ObservationHit]:
    """The ``limit`` best observations of the scopes (forgotten ones never) holding every
    term, then, while too few, any term."""
    if query.is_empty or not project_pks or limit <= 0:
        return []
    found: list[tuple[Observation, float]] = []
    seen: set[str] = set()
    scored_by = ranking(query)
    for tsquery in (every_term(query), any_term(query)):
        rows = conn.execute(
            _OBSERVATION_SQL, (scored_by, project_pks, tsquery, limit), prepare=False
        ).fetchall()
        for row in rows:
            observation = observation_from_row(row[1:])
            if observation.id not in seen:
                seen.add(observation.id)
                found.append((observation, float(row[0])))
        if len(found) >= limit or len(query.positive) < 2:
            break
    terms = [term_phrases(term) for term in query.positive]
    return [(o, score, make_snippet(o.narrative, terms)) for o, score in found[:limit]]

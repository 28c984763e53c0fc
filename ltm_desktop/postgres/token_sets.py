"""The writer's near-duplicate candidates: each scope's token sets as bits in this process
(``engine.token_sets``), as SQLite's writer keeps them.

Asking the server instead (a GIN overlap on ``memory_index.tokens``, then counting the
shared tokens of every candidate) read and compared 100-900 candidate sets an add in a
scope of a few thousand memories: 1-2 ms of the server's time, the largest part of an
add. Here the sets are read once per scope and process, then brought up to date from the
``memory_index`` and ``memory_index_erased`` rows whose ``seq`` passed the last one seen
(one index seek each when nothing changed; another process's writes included). That is
exact for the writer: every change to ``memory_index`` takes its ``seq`` under the
writer's advisory lock (``postgres.vectors``), which the writer holds while it looks, so
no change with a smaller ``seq`` can still commit.

The sets may hold rows of the writer's open transaction; ``reset`` forgets them all when
it rolls back.
"""

from __future__ import annotations

import threading
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from psycopg import Cursor

from ltm_desktop.engine.token_sets import TokenSets, token_bits
from ltm_desktop.postgres.conn import Conn

_CHANGED = (
    "SELECT i.memory_pk, i.tokens, i.seq, 0 FROM memory_index AS i "
    "WHERE i.project_pk = %(scope)s::bigint AND i.seq > %(seq)s "
    "UNION ALL SELECT e.memory_pk, NULL, e.seq, 1 FROM memory_index_erased AS e "
    "WHERE e.project_pk = %(scope)s::bigint AND e.seq > %(seq)s ORDER BY 3"
)
_WHOLE = "SELECT memory_pk, tokens FROM memory_index WHERE project_pk = %s::bigint"
_NEWEST = (
    "SELECT greatest(coalesce((SELECT max(seq) FROM memory_index WHERE project_pk = %(scope)s::bigint), 0), "
    "coalesce((SELECT max(seq) FROM memory_index_erased WHERE project_pk = %(scope)s::bigint), 0))"
)
_BAND = "m.disabled = 0 AND m.token_count > %s AND m.token_count < %s"


def _bits(tokens: list[str] | None) -> bytes | None:
    """A row's set as bits; None when its tokens are not known yet (a candidate always)."""
    return None if tokens is None else token_bits(tokens)


@dataclass(frozen=True, slots=True)
class Ahead:
    """A scope's changes asked for before they are needed (``PgScopeTokenSets.ahead``)."""

    project_pk: int
    seq: int
    cursor: Cursor[Any]


class PgScopeTokenSets:
    """The writer's ``TokenSets`` per scope (see the module); used under the writer's lock."""

    def __init__(self) -> None:
        self._scopes: dict[int, TokenSets] = {}
        self._lock = threading.Lock()

    def reset(self) -> None:
        """Forget every scope's sets (a write transaction rolled back: they may hold its rows)."""
        with self._lock:
            self._scopes.clear()

    def ahead(self, conn: Conn, project_pk: int) -> Ahead | None:
        """Send the scope's changes since its sets were last brought up to date, to be read
        by ``current`` (None: nothing loaded yet). The writer asks when it looks for an
        exact duplicate: in the write's pipeline the question goes with that read, not on
        a round trip of its own before the near duplicates."""
        with self._lock:
            sets = self._scopes.get(project_pk)
        if sets is None or (sets.seq == 0 and sets.grown.size == 0):
            return None
        cursor = conn.execute(_CHANGED, {"scope": project_pk, "seq": sets.seq}, binary=True)
        return Ahead(project_pk, sets.seq, cursor)

    def current(self, conn: Conn, project_pk: int, ahead: Ahead | None = None) -> TokenSets:
        """The scope's sets with every change committed, or made in ``conn``'s transaction
        (``ahead``: the changes already asked for, used if asked since the same ``seq``)."""
        with self._lock:
            sets = self._scopes.get(project_pk)
            if sets is None:
                sets = self._scopes[project_pk] = TokenSets()
        if sets.seq == 0 and sets.grown.size == 0:
            _load_whole(conn, project_pk, sets)
            return sets
        if ahead is not None and (ahead.project_pk, ahead.seq) == (project_pk, sets.seq):
            rows = ahead.cursor.fetchall()
        else:
            rows = conn.execute(
                _CHANGED, {"scope": project_pk, "seq": sets.seq}, binary=True
            ).fetchall()
        if rows:
            sets.update([(pk, _bits(tokens), seq, erased) for pk, tokens, seq, erased in rows])
        return sets


def _load_whole(conn: Conn, project_pk: int, sets: TokenSets) -> None:
    """The scope's rows as they are now and the newest ``seq`` of both tables (the writer
    holds the lock: nothing changes between the two reads)."""
    newest = conn.execute(_NEWEST, {"scope": project_pk}).fetchone()
    rows: list[tuple[Any, ...]] = conn.execute(_WHOLE, (project_pk,), binary=True).fetchall()
    if rows:
        sets.load([(pk, _bits(tokens)) for pk, tokens in rows], int(newest[0]) if newest else 0)


def near_duplicates(
    conn: Conn,
    sets: PgScopeTokenSets,
    project_pk: int,
    tokens: Collection[str],
    at_least: int,
    min_tokens: float,
    max_tokens: float,
    ahead: Ahead | None = None,
) -> list[tuple[str, str]]:
    """(id, content) of the scope's active memories with ``min_tokens < token_count <
    max_tokens`` whose token set holds at least ``at_least`` of ``tokens`` (and maybe a
    few that do not: the bits of two tokens can be the same), and of those whose set is
    not known yet, as SQLite's. Only when the bits find some is a row read (by key)."""
    if at_least > len(set(tokens)):
        return []
    held = sets.current(conn, project_pk, ahead).holding(tokens, at_least)
    if not held:
        return []
    rows = conn.execute(
        f"SELECT m.id, m.content FROM memories AS m WHERE m.pk = ANY(%s::bigint[]) "
        f"AND m.project_pk = %s::bigint AND {_BAND} ORDER BY m.pk",
        (held, project_pk, min_tokens, max_tokens),
    ).fetchall()
    return [(row[0], row[1]) for row in rows]

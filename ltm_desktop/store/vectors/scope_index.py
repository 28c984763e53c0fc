"""Per-scope arrays in memory, for the two searches the full-text index cannot answer fast.

``memory_index`` holds one row per memory: a 256-bit set of its tokens (near-duplicate
candidates) and its vector (semantic search), with ``seq`` raised on every change; an
erased memory leaves a row in ``memory_index_erased`` (its pk, scope and the next
``seq``). A scope's arrays are loaded on first use and brought up to date from the rows
of both whose ``seq`` passed the last one seen (one index seek each when nothing
changed), in ``seq`` order, so the writes and erasures of other processes are picked
up. numpy is imported on first use only: entry points
that never search stay light.
"""

from __future__ import annotations

import sqlite3
import threading
from typing import Any

from ltm_desktop.engine.token_sets import ALL_TOKENS, TOKEN_BITS, WORDS, TokenSets, token_bits

__all__ = [
    "ALL_TOKENS",
    "TOKEN_BITS",
    "WORDS",
    "ScopeTokenSets",
    "TokenSets",
    "changed_rows",
    "next_seq",
    "token_bits",
]


def next_seq(conn: sqlite3.Connection, project_pk: int) -> int:
    """The scope's next ``seq``: past every change, erasures included (a seq handed out
    again would be one the readers think they have seen)."""
    row = conn.execute(
        "SELECT max(coalesce((SELECT max(seq) FROM memory_index WHERE project_pk = ?1), 0), "
        "coalesce((SELECT max(seq) FROM memory_index_erased WHERE project_pk = ?1), 0)) + 1",
        (project_pk,),
    ).fetchone()
    return int(row[0])


def changed_rows(
    conn: sqlite3.Connection, project_pk: int, seq: int, columns: str
) -> list[tuple[Any, ...]]:
    """The scope's index rows changed after ``seq``, oldest change first: (memory_pk,
    *``columns``, seq, erased); an erased memory's row has None for ``columns``."""
    nothing = ", ".join("NULL" for _ in columns.split(","))
    rows: list[tuple[Any, ...]] = conn.execute(
        f"SELECT memory_pk, {columns}, seq, 0 FROM memory_index WHERE project_pk = ?1 AND seq > ?2 "
        f"UNION ALL SELECT memory_pk, {nothing}, seq, 1 FROM memory_index_erased "
        "WHERE project_pk = ?1 AND seq > ?2 ORDER BY seq",
        (project_pk, seq),
    ).fetchall()
    return rows


class ScopeTokenSets:
    """The writer's TokenSets per scope; forgotten whole when a transaction rolls back.

    Only the writer reads or changes them (``SqliteWriteTxn.near_duplicates``, and
    ``reset`` on a rollback), always under the store's write lock: unlike the vectors
    (store.vectors), no search thread ever sees them, so they are changed in place. They
    hold the open transaction's own rows, which no reader may see anyway.
    """

    def __init__(self) -> None:
        self._scopes: dict[int, TokenSets] = {}
        self._lock = threading.Lock()

    def reset(self) -> None:
        with self._lock:
            self._scopes.clear()

    def current(self, conn: sqlite3.Connection, project_pk: int) -> TokenSets:
        """The scope's sets with every change committed (or made in ``conn``'s transaction)."""
        with self._lock:
            sets = self._scopes.get(project_pk)
            if sets is None:
                sets = self._scopes[project_pk] = TokenSets()
        if sets.seq == 0 and sets.grown.size == 0:
            _load_whole(conn, project_pk, sets)
            return sets
        rows = changed_rows(conn, project_pk, sets.seq, "token_bits")
        if rows:
            sets.update(rows)
        return sets


def _load_whole(conn: sqlite3.Connection, project_pk: int, sets: TokenSets) -> None:
    """The scope's rows as they are now (a third of reading every change since 0, at
    135,000 memories), and the newest ``seq`` of both tables, so that the next look
    reads only what changed after it."""
    rows = conn.execute(
        "SELECT memory_pk, token_bits FROM memory_index WHERE project_pk = ?", (project_pk,)
    ).fetchall()
    (newest,) = conn.execute(
        "SELECT max(coalesce((SELECT max(seq) FROM memory_index WHERE project_pk = ?1), 0), "
        "coalesce((SELECT max(seq) FROM memory_index_erased WHERE project_pk = ?1), 0))",
        (project_pk,),
    ).fetchone()
    if rows:
        sets.load(rows, int(newest))

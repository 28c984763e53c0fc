"""Reads for semantic search and its backfill: nearest memories, what lacks a vector."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from ltm_desktop.core.records import Memory, SearchFilter
from ltm_desktop.engine.vectors.nearest import Nearest, nearest_live
from ltm_desktop.store.memory_reads import get_memories_by_pk
from ltm_desktop.store.rows import MEMORY_COLUMNS, MEMORY_FROM, memory_from_row
from ltm_desktop.store.vectors.storage import VectorIndex

__all__ = ["Nearest", "index_progress", "index_version", "search_vectors", "unindexed"]


def search_vectors(
    conn: sqlite3.Connection,
    index: VectorIndex,
    project_pks: Sequence[int],
    asked: Nearest,
    now: float,
    where: SearchFilter | None = None,
) -> list[tuple[Memory, float]]:
    """The nearest live memories of the scopes (or those ``where`` admits), cosine scores,
    best first (``engine.vectors.nearest.nearest_live``)."""
    if not project_pks or asked.limit <= 0:
        return []
    # One version of each scope for the whole search (the centring included), however
    # the index moves meanwhile: engine.vectors.snapshot.
    scopes = [index.snapshot(conn, pk, asked.model) for pk in project_pks]
    return nearest_live(
        scopes, asked, lambda pks: get_memories_by_pk(conn, pks, project_pks), now, where
    )


# Index rows without a vector of the model ?1 (none, or another model's): three ranges of
# ``memory_index_by_model``; and rows without a token set (``memory_index_without_tokens``).
WITHOUT_VECTOR = (
    "SELECT memory_pk FROM memory_index WHERE model IS NULL OR model < ?1 OR model > ?1"
)
WITHOUT_TOKENS = "SELECT memory_pk FROM memory_index WHERE token_bits IS NULL"
# One range of an index of what is left to do, walked in memory_pk order from a cursor
# (?1) to its first ?2 active memories. The index is named: for ``model IS NULL`` the
# planner prefers the table in rowid order, which scans every row done to find none left.
LACKING = (
    "SELECT i.memory_pk FROM memory_index AS i INDEXED BY {index} "
    "JOIN memories AS m ON m.pk = i.memory_pk "
    "WHERE {lacks} AND i.memory_pk > ?1 AND m.disabled = 0 ORDER BY i.memory_pk LIMIT ?2"
)


def unindexed(conn: sqlite3.Connection, model: str, after_id: str, limit: int) -> list[Memory]:
    """Active memories lacking their token set or a vector of ``model`` (""; none needed),
    in storage (pk) order after the memory ``after_id`` (""; from the start).

    Each kind of lack is a range of an index that seeks to the cursor and yields only
    rows still to do, so a batch costs the same at any size and position, and a pass
    that finds nothing left is a few index seeks: what is done is never read again.
    """
    after = 0
    if after_id:  # an erased cursor: from the start (done rows are in no range)
        row = conn.execute("SELECT pk FROM memories WHERE id = ?", (after_id,)).fetchone()
        after = int(row[0]) if row else 0
    found: set[int] = set()
    for index, lacks, params in _lacking_ranges(conn, model):
        sql = LACKING.format(index=index, lacks=lacks)
        found.update(pk for (pk,) in conn.execute(sql, (after, limit, *params)))
    chosen = sorted(found)[:limit]  # each range's first ``limit``: the union's first too
    if not chosen:
        return []
    rows = conn.execute(
        f"SELECT {MEMORY_COLUMNS} FROM {MEMORY_FROM} "
        f"WHERE m.pk IN ({', '.join('?' * len(chosen))}) ORDER BY m.pk",
        chosen,
    ).fetchall()
    return [memory_from_row(row) for row in rows]


def _lacking_ranges(conn: sqlite3.Connection, model: str) -> list[tuple[str, str, tuple[str, ...]]]:
    """(index, condition, parameters) of each range of rows lacking something: no token
    set; with a model, no vector, and a vector of each other model stored."""
    ranges: list[tuple[str, str, tuple[str, ...]]] = [
        ("memory_index_without_tokens", "i.token_bits IS NULL", ())
    ]
    if model:
        ranges.append(("memory_index_by_model", "i.model IS NULL", ()))
        ranges += [
            ("memory_index_by_model", "i.model = ?3", (other,))
            for other in stored_models(conn)
            if other != model
        ]
    return ranges


def stored_models(conn: sqlite3.Connection) -> list[str]:
    """The models of the stored vectors (a handful): one seek of ``memory_index_by_model``
    each, never a read of its rows."""
    models: list[str] = []
    (found,) = conn.execute("SELECT min(model) FROM memory_index").fetchone()
    while found is not None:
        models.append(str(found))
        (found,) = conn.execute(
            "SELECT min(model) FROM memory_index WHERE model > ?", (found,)
        ).fetchone()
    return models


def index_version(conn: sqlite3.Connection, project_pks: Sequence[int]) -> int:
    """The scopes' change numbers added up (each only grows; an erasure moves it too):
    an index seek per scope."""
    total = 0
    for pk in project_pks:
        (seq,) = conn.execute(
            "SELECT max(coalesce((SELECT max(seq) FROM memory_index WHERE project_pk = ?1), 0), "
            "coalesce((SELECT max(seq) FROM memory_index_erased WHERE project_pk = ?1), 0))",
            (pk,),
        ).fetchone()
        total += int(seq)
    return total


def index_progress(conn: sqlite3.Connection, model: str) -> tuple[int, int]:
    """(active memories with a vector of ``model``, active memories): a count of the
    active ones, less those of them found without one by index."""
    (total,) = conn.execute("SELECT count(*) FROM memories WHERE disabled = 0").fetchone()
    if not model:
        return 0, int(total)
    (lacking,) = conn.execute(
        f"SELECT count(*) FROM memories WHERE pk IN ({WITHOUT_VECTOR}) AND disabled = 0",
        (model,),
    ).fetchone()
    return int(total) - int(lacking), int(total)

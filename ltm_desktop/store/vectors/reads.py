"""Reads for semantic search and its backfill: nearest memories, what lacks a vector."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from ltm_desktop.core.records import Memory, SearchFilter
from ltm_desktop.store.memory_reads import get_memories_by_pk
from ltm_desktop.store.rows import MEMORY_COLUMNS, MEMORY_FROM, memory_from_row
from ltm_desktop.store.vectors.snapshot import centred
from ltm_desktop.store.vectors.storage import VectorIndex

SLACK = 3  # extra nearest rows, so that a few removed or expired ones rarely need a second look


@dataclass(frozen=True, slots=True)
class Nearest:
    """What a vector search asks: the ``limit`` nearest to ``vector`` of ``model``, none
    below ``min_score``; with ``centre``, ordered by similarity to the vector less the
    mean of the scopes' vectors (store.vectors)."""

    model: str
    vector: bytes
    limit: int
    min_score: float
    centre: float | None = None


def search_vectors(
    conn: sqlite3.Connection,
    index: VectorIndex,
    project_pks: Sequence[int],
    asked: Nearest,
    now: float,
    where: SearchFilter | None = None,
) -> list[tuple[Memory, float]]:
    """The nearest live memories of the scopes (or those ``where`` admits), cosine scores,
    best first by cosine or, centred, by similarity to the centred query.

    Removed and expired memories keep their vectors (a restore needs no new one), so they
    are dropped here (as are those outside a filter), looking further when too many were.
    """
    admits = where or SearchFilter()
    if not project_pks or asked.limit <= 0:
        return []
    # One version of each scope for the whole search (the centring included), however
    # the index moves meanwhile: store.vector_snapshot.
    scopes = [index.snapshot(conn, pk, asked.model) for pk in project_pks]
    want = asked.limit + SLACK
    order = None
    if asked.centre is not None:
        order = centred(scopes, asked.vector, asked.centre)
    while True:
        found: list[tuple[int, float, float]] = []
        exhausted = True
        for scope in scopes:
            close = scope.nearest(asked.vector, want, asked.min_score, order)
            exhausted = exhausted and len(close) < want
            found += close
        found.sort(key=lambda hit: -hit[2])
        live = {
            pk: memory
            for pk, memory in get_memories_by_pk(conn, [pk for pk, _, _ in found], project_pks)
            if admits.admits(memory, now)
        }
        hits = [(live[pk], score) for pk, score, _ in found if pk in live][: asked.limit]
        if len(hits) >= asked.limit or exhausted:
            return hits
        want *= 4


# Index rows without a vector of the model ?1 (none, or another model's): three ranges of
# ``memory_index_by_model``; and rows without a token set (``memory_index_without_tokens``).
WITHOUT_VECTOR = (
    "SELECT memory_pk FROM memory_index WHERE model IS NULL OR model < ?1 OR model > ?1"
)
WITHOUT_TOKENS = "SELECT memory_pk FROM memory_index WHERE token_bits IS NULL"


def unindexed(conn: sqlite3.Connection, model: str, after_id: str, limit: int) -> list[Memory]:
    """Found by index: as cheap as nothing when nothing is left to do, at any size."""
    lacking = f"{WITHOUT_TOKENS} UNION {WITHOUT_VECTOR}" if model else WITHOUT_TOKENS
    rows = conn.execute(
        f"SELECT {MEMORY_COLUMNS} FROM {MEMORY_FROM} WHERE m.pk IN ({lacking}) "
        "AND m.disabled = 0 AND m.id > ?2 ORDER BY m.id LIMIT ?3",
        (model, after_id, limit),
    ).fetchall()
    return [memory_from_row(row) for row in rows]


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

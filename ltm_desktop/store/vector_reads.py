"""Reads for semantic search and its backfill: nearest memories, what lacks a vector."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from ltm_desktop.core.records import Memory, SearchFilter
from ltm_desktop.store.memory_reads import get_memories_by_pk
from ltm_desktop.store.rows import MEMORY_COLUMNS, MEMORY_FROM, memory_from_row
from ltm_desktop.store.vectors import VectorIndex

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
    want = asked.limit + SLACK
    order = None
    if asked.centre is not None:
        order = index.centred(conn, project_pks, asked.model, asked.vector, asked.centre)
    while True:
        found: list[tuple[int, float, float]] = []
        exhausted = True
        for pk in project_pks:
            close = index.nearest(conn, pk, asked.model, asked.vector, want, asked.min_score, order)
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


def unindexed(conn: sqlite3.Connection, model: str, after_id: str, limit: int) -> list[Memory]:
    rows = conn.execute(
        f"SELECT {MEMORY_COLUMNS} FROM {MEMORY_FROM} "
        "LEFT JOIN memory_index AS i ON i.memory_pk = m.pk "
        "WHERE m.id > ? AND m.disabled = 0 AND (i.memory_pk IS NULL OR i.token_bits IS NULL "
        "OR (? != '' AND i.model IS NOT ?)) ORDER BY m.id LIMIT ?",
        (after_id, model, model, limit),
    ).fetchall()
    return [memory_from_row(row) for row in rows]


def index_progress(conn: sqlite3.Connection, model: str) -> tuple[int, int]:
    row = conn.execute(
        "SELECT count(*), coalesce(sum(i.model = ?), 0) FROM memories AS m "
        "LEFT JOIN memory_index AS i ON i.memory_pk = m.pk WHERE m.disabled = 0",
        (model,),
    ).fetchone()
    return int(row[1]), int(row[0])

"""Vectors and token sets in PostgreSQL: stored per memory in ``memory_index``, searched in
numpy per scope (``engine.vectors``, as SQLite does) where pgvector is not installed.

A memory's ``memory_index`` row holds its similarity tokens (``text[]``, sorted and
unique, under a GIN index for near-duplicate candidates) and its vector (int8 codes with
a scale, as ``engine.vectors.scope_vectors.quantize`` makes them, the model named once
in ``vector_models``). Every change takes ``seq`` from the ``memory_index_seq``
sequence; an erased memory leaves a row in ``memory_index_erased`` with the next one.
Each process keeps its scopes' vectors in memory (``PgVectorIndex``) and brings a scope
up to date from the rows of both tables whose ``seq`` passed the last one it saw, so the
writes and erasures of every other process, on any machine, are picked up.

That rests on one property: a ``seq`` is never seen before a smaller one. Every call
here that writes runs inside ``PgDatabase.transaction``, which holds the writer's
advisory lock until it commits, so sequence values are handed out in commit order (a
rolled-back write leaves a gap, which is harmless).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from ltm_desktop.core.records import Memory, SearchFilter
from ltm_desktop.engine.rows import memory_from_row
from ltm_desktop.engine.vectors.nearest import Nearest, nearest_live
from ltm_desktop.engine.vectors.scope_vectors import quantize
from ltm_desktop.engine.vectors.scopes import VectorScopes
from ltm_desktop.engine.vectors.snapshot import VectorSnapshot
from ltm_desktop.postgres.conn import Conn
from ltm_desktop.postgres.rows import MEMORY_COLUMNS, MEMORY_FROM

__all__ = [
    "Nearest",
    "PgVectorIndex",
    "index_progress",
    "index_version",
    "record_erased",
    "search_vectors",
    "set_index",
    "unindexed",
]

# A scope's index rows changed after a seq, oldest change first: (memory_pk, model,
# vector, seq, erased), an erased memory's with no model or vector. Two ranges of the
# (project_pk, seq) indexes.
_CHANGED = (
    "SELECT i.memory_pk, v.name, i.vector, i.seq, 0 FROM memory_index AS i "
    "LEFT JOIN vector_models AS v ON v.pk = i.model_pk "
    "WHERE i.project_pk = %(scope)s AND i.seq > %(seq)s "
    "UNION ALL SELECT memory_pk, NULL, NULL, seq, 1 FROM memory_index_erased "
    "WHERE project_pk = %(scope)s AND seq > %(seq)s ORDER BY 4"
)


def changed_rows(conn: Conn, project_pk: int, seq: int) -> list[tuple[Any, ...]]:
    """The scope's index rows changed after ``seq`` (``engine.vectors.scopes.Changes``),
    fetched in binary (a vector's bytes as they are, not hex text: a scope's first load
    moves every vector)."""
    with conn.cursor(binary=True) as cursor:
        cursor.execute(_CHANGED, {"scope": project_pk, "seq": seq})
        return cursor.fetchall()


class PgVectorIndex:
    """Every scope's vectors in this process, for the readers: each search takes a scope's
    latest version (bringing it up to date first) and never waits for another search."""

    def __init__(self) -> None:
        self._scopes = VectorScopes()

    def snapshot(self, conn: Conn, project_pk: int, model: str) -> VectorSnapshot:
        """The scope's vectors with every change ``conn`` sees (an index seek when none)."""
        return self._scopes.snapshot(
            project_pk, model, lambda seq: changed_rows(conn, project_pk, seq)
        )

    def memory_bytes(self) -> int:
        """What the latest versions' arrays take (for the benchmark)."""
        return self._scopes.memory_bytes()


def memories_by_pk(
    conn: Conn, pks: list[int], project_pks: Sequence[int]
) -> list[tuple[int, Memory]]:
    """The memories of ``pks`` that are in one of the scopes ``project_pks`` (an index
    that is behind never hands out another scope's memory, nor an erased one)."""
    if not pks:
        return []
    rows = conn.execute(
        f"SELECT m.pk, {MEMORY_COLUMNS} FROM {MEMORY_FROM} "
        "WHERE m.pk = ANY(%s) AND m.project_pk = ANY(%s)",
        (pks, list(project_pks)),
    ).fetchall()
    return [(int(row[0]), memory_from_row(row[1:])) for row in rows]


def search_vectors(
    conn: Conn,
    index: PgVectorIndex,
    project_pks: list[int],
    nearest: Nearest,
    now: float,
    where: SearchFilter | None = None,
) -> list[tuple[Memory, float]]:
    """The nearest live memories of the scopes (or those ``where`` admits), cosine scores,
    best first by cosine or, centred, by similarity to the centred query
    (``MemoryStore.search_vectors``; ``engine.vectors.nearest.nearest_live``)."""
    if not project_pks or nearest.limit <= 0:
        return []
    # One version of each scope for the whole search, however the index moves meanwhile.
    scopes = [index.snapshot(conn, pk, nearest.model) for pk in project_pks]
    return nearest_live(
        scopes, nearest, lambda pks: memories_by_pk(conn, pks, project_pks), now, where
    )


# -- writes (inside PgDatabase.transaction: the writer's lock is held) ----------------


def model_pk(conn: Conn, model: str) -> int:
    """The pk of ``model`` in ``vector_models``, made on its first vector."""
    row = conn.execute("SELECT pk FROM vector_models WHERE name = %s", (model,)).fetchone()
    if row is None:
        row = conn.execute(
            "INSERT INTO vector_models (name) VALUES (%s) ON CONFLICT (name) DO NOTHING "
            "RETURNING pk",
            (model,),
        ).fetchone()
    if row is None:  # made by another transaction meanwhile
        row = conn.execute("SELECT pk FROM vector_models WHERE name = %s", (model,)).fetchone()
    assert row is not None
    return int(row[0])


def set_index(
    conn: Conn,
    memory_pk: int,
    project_pk: int,
    *,
    tokens: Collection[str] | None = None,
    vector: tuple[str, bytes] | None = None,
    drop_vector: bool = False,
) -> None:
    """Change a memory's ``memory_index`` row (made if missing): its similarity tokens,
    its vector (model, float32 bytes: quantized here, as SQLite does) or neither (dropped
    with ``drop_vector``); ``seq`` moves on either way, so every process reloads it."""
    values: dict[str, Any] = {}
    if tokens is not None:
        values["tokens"] = sorted(set(tokens))
    if vector is not None:
        model, blob = vector
        values["model_pk"], values["vector"] = model_pk(conn, model), quantize(blob)
    elif drop_vector:
        values["model_pk"] = values["vector"] = None
    names = "".join(f", {name}" for name in values)
    marks = "".join(f", %({name})s" for name in values)
    updates = "".join(f", {name} = excluded.{name}" for name in values)
    conn.execute(
        f"INSERT INTO memory_index (memory_pk, project_pk, seq{names}) "
        f"VALUES (%(memory_pk)s, %(project_pk)s, nextval('memory_index_seq'){marks}) "
        f"ON CONFLICT (memory_pk) DO UPDATE SET seq = excluded.seq{updates}",
        {"memory_pk": memory_pk, "project_pk": project_pk, **values},
    )


def insert_token_sets(conn: Conn, rows: Sequence[tuple[int, int, Collection[str]]]) -> None:
    """The index rows of new memories (memory pk, project pk, similarity tokens), no vector
    yet: ``set_index`` for a whole batch, one statement."""
    with conn.cursor() as cursor:
        cursor.executemany(
            "INSERT INTO memory_index (memory_pk, project_pk, seq, tokens) "
            "VALUES (%s, %s, nextval('memory_index_seq'), %s)",
            [(pk, project_pk, sorted(set(tokens))) for pk, project_pk, tokens in rows],
        )


def record_erased(conn: Conn, memory_pk: int, project_pk: int) -> None:
    """Before an erased memory's row is deleted: its index row goes, and its pk is noted
    as erased with the next ``seq`` (nothing else of it), so that every process's
    vectors drop it and ``index_version`` moves."""
    conn.execute(
        "INSERT INTO memory_index_erased (memory_pk, project_pk, seq) "
        "VALUES (%s, %s, nextval('memory_index_seq'))",
        (memory_pk, project_pk),
    )
    conn.execute("DELETE FROM memory_index WHERE memory_pk = %s", (memory_pk,))


# -- the backfill's reads -------------------------------------------------------------


def _model_pks(conn: Conn, model: str) -> tuple[int | None, list[int]]:
    """(``model``'s pk or None, the pks of every other model): a handful of rows."""
    mine: int | None = None
    others: list[int] = []
    for pk, name in conn.execute("SELECT pk, name FROM vector_models"):
        if name == model:
            mine = int(pk)
        else:
            others.append(int(pk))
    return mine, others


def _lacking(conn: Conn, model: str) -> tuple[str, dict[str, Any]]:
    """The condition on ``memory_index AS i`` of a row lacking its token set or (with a
    model) a vector of ``model``, as ranges of the partial index of rows without tokens
    and of ``memory_index_by_model`` (no vector; another model's), and its parameters."""
    conditions = ["i.tokens IS NULL"]
    params: dict[str, Any] = {}
    if model:
        _, others = _model_pks(conn, model)
        conditions.append("i.model_pk IS NULL")
        if others:
            conditions.append("i.model_pk = ANY(%(others)s)")
            params["others"] = others
    return "(" + " OR ".join(conditions) + ")", params


def unindexed(conn: Conn, model: str, after_id: str, limit: int) -> list[Memory]:
    """Active memories lacking their token set or a vector of ``model`` (""; none needed),
    in pk order after the memory ``after_id`` ("": from the start; an erased one too:
    done rows are never found again, so starting over costs nothing)."""
    after = 0
    if after_id:
        row = conn.execute("SELECT pk FROM memories WHERE id = %s", (after_id,)).fetchone()
        after = int(row[0]) if row is not None else 0
    lacks, params = _lacking(conn, model)
    rows = conn.execute(
        f"SELECT {MEMORY_COLUMNS} FROM memory_index AS i "
        f"JOIN {MEMORY_FROM} ON m.pk = i.memory_pk "
        f"WHERE {lacks} AND i.memory_pk > %(after)s AND m.disabled = 0 "
        "ORDER BY i.memory_pk LIMIT %(limit)s",
        {**params, "after": after, "limit": limit},
    ).fetchall()
    return [memory_from_row(row) for row in rows]


def index_progress(conn: Conn, model: str) -> tuple[int, int]:
    """(active memories with a vector of ``model``, active memories)."""
    row = conn.execute("SELECT count(*) FROM memories WHERE disabled = 0").fetchone()
    total = int(row[0]) if row is not None else 0
    mine = _model_pks(conn, model)[0] if model else None
    if mine is None:
        return 0, total
    row = conn.execute(
        "SELECT count(*) FROM memory_index AS i JOIN memories AS m ON m.pk = i.memory_pk "
        "WHERE i.model_pk = %s AND m.disabled = 0",
        (mine,),
    ).fetchone()
    return (int(row[0]) if row is not None else 0), total


def index_version(conn: Conn, project_pks: Sequence[int]) -> int:
    """The scopes' newest change numbers added up (each only grows: every change and
    erasure takes the next ``seq``): two index seeks per scope, in one statement."""
    if not project_pks:
        return 0
    row = conn.execute(
        "SELECT coalesce(sum(greatest("
        "(SELECT max(seq) FROM memory_index WHERE project_pk = s.pk), "
        "(SELECT max(seq) FROM memory_index_erased WHERE project_pk = s.pk))), 0) "
        "FROM unnest(%s::bigint[]) AS s(pk)",
        (list(project_pks),),
    ).fetchone()
    return int(row[0]) if row is not None else 0

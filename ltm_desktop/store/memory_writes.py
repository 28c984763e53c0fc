"""Every statement that changes a memory row, with its tags and search index rows.

Functions here run inside a transaction opened by the caller and never commit. They
store what the core decided (``core.writing``) and decide nothing themselves.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Sequence
from typing import Any

from ltm_desktop.core.errors import NotFound, echoed
from ltm_desktop.core.records import Memory
from ltm_desktop.engine.rows import (
    MEMORY_INSERT_COLUMNS,
    SEARCHED_FIELDS,
    STORED_FIELDS,
    memory_values,
)
from ltm_desktop.store.fts.indexing import (
    index_memories,
    index_memory,
    unindex_memory,
    write_files,
    write_many_files,
    write_many_tags,
    write_tags,
)
from ltm_desktop.store.rows import (
    MEMORY_COLUMNS,
    MEMORY_FROM,
    memory_from_row,
)
from ltm_desktop.store.vectors.scope_index import next_seq, token_bits


def load_memory(conn: sqlite3.Connection, memory_id: str) -> tuple[int, int, Memory]:
    """(pk, project_pk, memory) of ``memory_id``, disabled ones included."""
    row = conn.execute(
        f"SELECT m.pk, m.project_pk, {MEMORY_COLUMNS} FROM {MEMORY_FROM} WHERE m.id = ?",
        (memory_id,),
    ).fetchone()
    if row is None:
        raise NotFound(f"no memory has the id {echoed(memory_id)}")
    return row[0], row[1], memory_from_row(row[2:])


def find_active(
    conn: sqlite3.Connection, project_pk: int, signature: str
) -> tuple[int, Memory] | None:
    """(pk, memory) of the scope's memory with ``signature`` that is not disabled (the
    schema keeps at most one)."""
    row = conn.execute(
        f"SELECT m.pk, {MEMORY_COLUMNS} FROM {MEMORY_FROM} "
        "WHERE m.project_pk = ? AND m.signature = ? AND m.disabled = 0",
        (project_pk, signature),
    ).fetchone()
    return None if row is None else (int(row[0]), memory_from_row(row[1:]))


def active_signatures(conn: sqlite3.Connection, project_pk: int, signatures: list[str]) -> set[str]:
    """Those of ``signatures`` that an active memory of the scope has (500 per query)."""
    found: set[str] = set()
    for start in range(0, len(signatures), 500):
        chunk = signatures[start : start + 500]
        found.update(
            row[0]
            for row in conn.execute(
                "SELECT signature FROM memories WHERE project_pk = ? AND disabled = 0 "
                f"AND signature IN ({','.join('?' * len(chunk))})",
                (project_pk, *chunk),
            )
        )
    return found


def insert_memory(
    conn: sqlite3.Connection,
    project_pk: int,
    memory: Memory,
    tokens: Collection[str],
    vector: tuple[str, bytes] | None = None,
) -> int:
    """Insert a new memory with its tags, search index rows, token set and (model, quantized
    vector) if given; returns its pk."""
    cursor = conn.execute(_INSERT_MEMORY, _memory_values(None, project_pk, memory, len(tokens)))
    pk = int(cursor.lastrowid or 0)
    model, stored = vector or (None, None)
    conn.execute(
        "INSERT INTO memory_index (memory_pk, project_pk, seq, token_bits, model, vector) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (pk, project_pk, next_seq(conn, project_pk), token_bits(tokens), model, stored),
    )
    if memory.tags:
        write_tags(conn, pk, memory.tags)
    if memory.files:
        write_files(conn, pk, memory.files)
    if not memory.disabled:
        index_memory(conn, pk, memory, project_pk)
    return pk


def _memory_values(
    pk: int | None, project_pk: int, memory: Memory, token_count: int
) -> tuple[Any, ...]:
    return (pk, *memory_values(project_pk, memory, token_count))


_INSERT_MEMORY = (
    f"INSERT INTO memories (pk, {MEMORY_INSERT_COLUMNS}) VALUES ({', '.join('?' * 24)})"
)


def insert_memories(
    conn: sqlite3.Connection,
    project_pk: int,
    batch: Sequence[tuple[Memory, Collection[str]]],
) -> list[int]:
    """``insert_memory`` for many new memories of one scope (no vectors: the backfill's),
    a statement per table for the whole batch; returns their pks in order.

    The pks follow the largest one, as SQLite's own choice of a new rowid does: the caller
    holds the write transaction, so nobody else inserts meanwhile."""
    if not batch:
        return []
    first = int(conn.execute("SELECT coalesce(max(pk), 0) + 1 FROM memories").fetchone()[0])
    pks = list(range(first, first + len(batch)))
    rows = [(pk, memory, tokens) for pk, (memory, tokens) in zip(pks, batch, strict=True)]
    seq = next_seq(conn, project_pk)
    conn.executemany(
        _INSERT_MEMORY, [_memory_values(pk, project_pk, m, len(t)) for pk, m, t in rows]
    )
    conn.executemany(
        "INSERT INTO memory_index (memory_pk, project_pk, seq, token_bits) VALUES (?, ?, ?, ?)",
        [(pk, project_pk, seq + i, token_bits(t)) for i, (pk, _, t) in enumerate(rows)],
    )
    write_many_tags(conn, [(pk, m.tags) for pk, m, _ in rows if m.tags])
    write_many_files(conn, [(pk, m.files) for pk, m, _ in rows if m.files])
    index_memories(conn, project_pk, [(pk, m) for pk, m, _ in rows if not m.disabled])
    return pks


def save_memory(
    conn: sqlite3.Connection,
    pk: int,
    project_pk: int,
    before: Memory,
    after: Memory,
    tokens: Collection[str] | None = None,
) -> None:
    """Write the columns that differ between ``before`` (the stored row) and ``after``, and
    keep the tag rows, the search index and the token set in step (a changed text drops
    the vector: it was made from the old one)."""
    if (after.id, after.project_id) != (before.id, before.project_id):
        raise ValueError(f"a memory keeps its id and scope ({before.id})")
    values = {
        name: store(getattr(after, name))
        for name, store in STORED_FIELDS.items()
        if getattr(after, name) != getattr(before, name)
    }
    if after.expires_at != before.expires_at:
        values["expires_at"] = after.expires_at
    if tokens is not None:
        values["token_count"] = len(tokens)
    if not values:
        return
    columns = ", ".join(f"{name} = ?" for name in values)
    conn.execute(f"UPDATE memories SET {columns} WHERE pk = ?", (*values.values(), pk))
    if after.tags != before.tags:
        write_tags(conn, pk, after.tags)
    if after.files != before.files:
        write_files(conn, pk, after.files)
    searched = any(getattr(after, f) != getattr(before, f) for f in SEARCHED_FIELDS)
    if searched or tokens is not None:
        set_index(conn, pk, project_pk, tokens=tokens, drop_vector=searched)
    if not before.disabled and (after.disabled or searched):
        unindex_memory(conn, pk, before, project_pk)
    if not after.disabled and (before.disabled or searched):
        index_memory(conn, pk, after, project_pk)


def set_index(
    conn: sqlite3.Connection,
    pk: int,
    project_pk: int,
    *,
    tokens: Collection[str] | None = None,
    vector: tuple[str, bytes] | None = None,
    drop_vector: bool = False,
) -> None:
    """Change a memory's ``memory_index`` row (made if missing): its token set, its vector
    (model, quantized vector) or neither; ``seq`` moves on so every process reloads it."""
    values: dict[str, Any] = {}
    if tokens is not None:
        values["token_bits"] = token_bits(tokens)
    if vector is not None:
        values["model"], values["vector"] = vector
    elif drop_vector:
        values["model"] = values["vector"] = None
    columns = "".join(f", {name} = ?" for name in values)
    seq = next_seq(conn, project_pk)
    updated = conn.execute(
        f"UPDATE memory_index SET seq = ?{columns} WHERE memory_pk = ?",
        (seq, *values.values(), pk),
    ).rowcount
    if not updated:  # a memory stored before its index row existed
        names = "".join(f", {name}" for name in values)
        marks = ", ?" * len(values)
        conn.execute(
            f"INSERT INTO memory_index (memory_pk, project_pk, seq{names}) VALUES (?, ?, ?{marks})",
            (pk, project_pk, seq, *values.values()),
        )


def expired_ids(conn: sqlite3.Connection, project_pk: int | None, now: float) -> list[str]:
    sql = (
        "SELECT id FROM memories WHERE disabled = 0 AND expires_at IS NOT NULL AND expires_at <= ?"
    )
    params: tuple[Any, ...] = (now,)
    if project_pk is not None:
        sql += " AND project_pk = ?"
        params = (now, project_pk)
    return [row[0] for row in conn.execute(sql, params)]


def reinforce(conn: sqlite3.Connection, uses: dict[str, tuple[int, float, float]]) -> None:
    """Count uses of memories (not an audit event: it is not a change of content)."""
    conn.executemany(
        "UPDATE memories SET use_count = use_count + ?, use_heat = use_heat + ?, "
        "last_used_at = max(coalesce(last_used_at, 0), ?) WHERE id = ?",
        [(count, heat, at, memory_id) for memory_id, (count, at, heat) in uses.items()],
    )

"""Every statement that changes a memory row, with its tags, files and search document.

Functions here run inside the caller's write transaction and never commit. They store
what the core decided (``core.writing``) and decide nothing themselves: SQLite's
``store.memory_writes`` in PostgreSQL's SQL. A memory's full-text document lives in its
own row (``search``), so indexing is part of the same INSERT or UPDATE.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any

from ltm_desktop.core.errors import NotFound, echoed
from ltm_desktop.core.records import Memory
from ltm_desktop.engine.rows import (
    MEMORY_INSERT_COLUMNS,
    SEARCHED_FIELDS,
    STORED_FIELDS,
    memory_from_row,
    memory_values,
)
from ltm_desktop.postgres.conn import Conn
from ltm_desktop.postgres.fts.document import MEMORY_DOCUMENT_SQL, memory_document_params
from ltm_desktop.postgres.rows import MEMORY_COLUMNS, MEMORY_FROM
from ltm_desktop.postgres.vectors import insert_token_sets, set_index

_INSERT = (
    f"INSERT INTO memories ({MEMORY_INSERT_COLUMNS}, search) VALUES "
    f"({', '.join(['%s'] * 23)}, {MEMORY_DOCUMENT_SQL}) RETURNING pk"
)
# A new memory with its token set, tags and files in one statement: what a single add
# writes when it has no vector yet. Nothing waits for its result (``insert_memory``).
_INSERT_WITH_ROWS = (
    f"WITH inserted AS ({_INSERT}), "
    "indexed AS (INSERT INTO memory_index (memory_pk, project_pk, seq, tokens) "
    "SELECT pk, %s, nextval('memory_index_seq'), %s FROM inserted), "
    "tagged AS (INSERT INTO memory_tags (tag, memory_pk) "
    "SELECT DISTINCT t, pk FROM inserted, unnest(%s::text[]) AS t), "
    "filed AS (INSERT INTO memory_files (path, memory_pk) "
    "SELECT DISTINCT f, pk FROM inserted, unnest(%s::text[]) AS f) "
    "SELECT pk FROM inserted"
)


def load_memory(conn: Conn, memory_id: str) -> tuple[int, int, Memory]:
    """(pk, project_pk, memory) of ``memory_id``, disabled ones included."""
    row = conn.execute(
        f"SELECT m.pk, m.project_pk, {MEMORY_COLUMNS} FROM {MEMORY_FROM} WHERE m.id = %s",
        (memory_id,),
    ).fetchone()
    if row is None:
        raise NotFound(f"no memory has the id {echoed(memory_id)}")
    return int(row[0]), int(row[1]), memory_from_row(row[2:])


def find_active(conn: Conn, project_pk: int, signature: str) -> tuple[int, Memory] | None:
    """(pk, memory) of the scope's memory with ``signature`` that is not disabled."""
    row = conn.execute(
        f"SELECT m.pk, {MEMORY_COLUMNS} FROM {MEMORY_FROM} "
        "WHERE m.project_pk = %s AND m.signature = %s AND m.disabled = 0",
        (project_pk, signature),
    ).fetchone()
    return None if row is None else (int(row[0]), memory_from_row(row[1:]))


def active_signatures(conn: Conn, project_pk: int, signatures: list[str]) -> set[str]:
    rows = conn.execute(
        "SELECT signature FROM memories WHERE project_pk = %s AND disabled = 0 "
        "AND signature = ANY(%s)",
        (project_pk, signatures),
    ).fetchall()
    return {str(row[0]) for row in rows}


def _values(project_pk: int, memory: Memory, token_count: int) -> tuple[Any, ...]:
    document = memory_document_params(
        memory.title, memory.content, memory.tags, project_pk=project_pk
    )
    return (*memory_values(project_pk, memory, token_count), *document)


def insert_memory(
    conn: Conn,
    project_pk: int,
    memory: Memory,
    tokens: Collection[str],
    vector: tuple[str, bytes] | None = None,
) -> Callable[[], int]:
    """Insert a new memory with its tags, files, search document, token set and (model,
    float32 vector) if given; returns what reads its pk. Without a vector it is one
    statement whose result is read only when the pk is asked for: in a write's pipeline
    (``PgDatabase.writing``) it goes to the server with the COMMIT, not on a round trip
    of its own."""
    values = _values(project_pk, memory, len(tokens))
    if vector is None:
        cursor = conn.execute(
            _INSERT_WITH_ROWS,
            (*values, project_pk, sorted(set(tokens)), list(memory.tags), list(memory.files)),
        )

        def pk_of_new() -> int:
            found = cursor.fetchone()
            assert found is not None  # RETURNING gives the row
            return int(found[0])

        return pk_of_new
    found = conn.execute(_INSERT, values).fetchone()
    assert found is not None
    pk = int(found[0])
    set_index(conn, pk, project_pk, tokens=tokens, vector=vector)
    write_tags(conn, pk, memory.tags, replace=False)
    write_files(conn, pk, memory.files, replace=False)
    return lambda: pk


def insert_memories(
    conn: Conn, project_pk: int, batch: Sequence[tuple[Memory, Collection[str]]]
) -> list[int]:
    """``insert_memory`` for many new memories of one scope (no vectors: the backfill's),
    a statement per table for the batch; returns their pks in order."""
    if not batch:
        return []
    pks: list[int] = []
    with conn.cursor() as cursor:
        cursor.executemany(
            _INSERT,
            [_values(project_pk, memory, len(tokens)) for memory, tokens in batch],
            returning=True,
        )
        while True:
            row = cursor.fetchone()
            assert row is not None
            pks.append(int(row[0]))
            if not cursor.nextset():
                break
    insert_token_sets(
        conn, [(pk, project_pk, tokens) for pk, (_, tokens) in zip(pks, batch, strict=True)]
    )
    tags = [(tag, pk) for pk, (memory, _) in zip(pks, batch, strict=True) for tag in memory.tags]
    files = [(path, pk) for pk, (m, _) in zip(pks, batch, strict=True) for path in m.files]
    with conn.cursor() as cursor:
        if tags:
            cursor.executemany(
                "INSERT INTO memory_tags (tag, memory_pk) VALUES (%s, %s) ON CONFLICT DO NOTHING",
                tags,
            )
        if files:
            cursor.executemany(
                "INSERT INTO memory_files (path, memory_pk) VALUES (%s, %s) ON CONFLICT DO NOTHING",
                files,
            )
    return pks


def write_tags(conn: Conn, pk: int, tags: Sequence[str], *, replace: bool = True) -> None:
    """The memory's tag rows (what a tag filter looks up), replacing any it had."""
    if replace:
        conn.execute("DELETE FROM memory_tags WHERE memory_pk = %s", (pk,))
    if tags:
        conn.execute(
            "INSERT INTO memory_tags (tag, memory_pk) SELECT DISTINCT t, %s FROM unnest(%s::text[]) AS t",
            (pk, list(tags)),
        )


def write_files(conn: Conn, pk: int, files: Sequence[str], *, replace: bool = True) -> None:
    """The memory's file rows (what the stale list and "memories naming" look up)."""
    if replace:
        conn.execute("DELETE FROM memory_files WHERE memory_pk = %s", (pk,))
    if files:
        conn.execute(
            "INSERT INTO memory_files (path, memory_pk) SELECT DISTINCT f, %s FROM unnest(%s::text[]) AS f",
            (pk, list(files)),
        )


def save_memory(
    conn: Conn,
    pk: int,
    project_pk: int,
    before: Memory,
    after: Memory,
    tokens: Collection[str] | None = None,
) -> None:
    """Write the columns that differ between ``before`` (the stored row) and ``after``, and
    keep the tag and file rows, the search document and the token set in step (a changed
    text drops the vector: it was made from the old one)."""
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
    searched = any(getattr(after, f) != getattr(before, f) for f in SEARCHED_FIELDS)
    columns = ", ".join(f"{name} = %s" for name in values)
    params: list[Any] = list(values.values())
    if searched:
        columns += f", search = {MEMORY_DOCUMENT_SQL}"
        params += memory_document_params(
            after.title, after.content, after.tags, project_pk=project_pk
        )
    conn.execute(f"UPDATE memories SET {columns} WHERE pk = %s", (*params, pk))
    if after.tags != before.tags:
        write_tags(conn, pk, after.tags)
    if after.files != before.files:
        write_files(conn, pk, after.files)
    if searched or tokens is not None:
        set_index(conn, pk, project_pk, tokens=tokens, drop_vector=searched)


def expired_ids(conn: Conn, project_pk: int | None, now: float) -> list[str]:
    sql = (
        "SELECT id FROM memories WHERE disabled = 0 AND expires_at IS NOT NULL AND expires_at <= %s"
    )
    params: tuple[Any, ...] = (now,)
    if project_pk is not None:
        sql += " AND project_pk = %s"
        params = (now, project_pk)
    return [str(row[0]) for row in conn.execute(sql, params).fetchall()]


def reinforce(conn: Conn, uses: dict[str, tuple[int, float, float]]) -> None:
    """Count uses of memories (not an audit event: it is not a change of content)."""
    with conn.cursor() as cursor:
        cursor.executemany(
            "UPDATE memories SET use_count = use_count + %s, use_heat = use_heat + %s, "
            "last_used_at = GREATEST(coalesce(last_used_at, 0), %s) WHERE id = %s",
            [(count, heat, at, memory_id) for memory_id, (count, at, heat) in uses.items()],
        )

"""Keeping a memory's search index rows and tag rows in step with the memory."""

from __future__ import annotations

import sqlite3

from ltm_desktop.core.records import Memory
from ltm_desktop.store.fts.tables import memory_table
from ltm_desktop.store.fts.text import index_text
from ltm_desktop.store.rows import decode_strings


def _index(
    conn: sqlite3.Connection, table: str, pk: int, title: str, content: str, tags: tuple[str, ...]
) -> None:
    conn.execute(
        f"INSERT INTO {table} (rowid, title, content, tags) VALUES (?, ?, ?, ?)",
        (pk, index_text(title), index_text(content), " ".join(tags)),
    )


def index_memory(conn: sqlite3.Connection, pk: int, memory: Memory, project_pk: int) -> None:
    """Add to the scope's FTS table (which the store creates with the scope's first write)."""
    _index(conn, memory_table(project_pk), pk, memory.title, memory.content, memory.tags)


def reindex_scope(conn: sqlite3.Connection, project_pk: int) -> int:
    """Fill the scope's (new, empty) FTS table from its memories, as ``index_memory`` does
    (the trash is not indexed); returns how many were indexed."""
    rows = conn.execute(
        "SELECT pk, title, content, tags FROM memories WHERE project_pk = ? AND disabled = 0",
        (project_pk,),
    )
    table = memory_table(project_pk)
    count = 0
    for pk, title, content, tags in rows:  # a cursor: one row in memory at a time
        _index(conn, table, pk, title, content, decode_strings(tags)[0])
        count += 1
    return count


def unindex_memory(conn: sqlite3.Connection, pk: int, project_pk: int) -> None:
    conn.execute(f"DELETE FROM {memory_table(project_pk)} WHERE rowid = ?", (pk,))


def write_files(conn: sqlite3.Connection, pk: int, files: tuple[str, ...]) -> None:
    conn.execute("DELETE FROM memory_files WHERE memory_pk = ?", (pk,))
    conn.executemany(
        "INSERT INTO memory_files (path, memory_pk) VALUES (?, ?)", [(f, pk) for f in files]
    )


def write_tags(conn: sqlite3.Connection, pk: int, tags: tuple[str, ...]) -> None:
    conn.execute("DELETE FROM memory_tags WHERE memory_pk = ?", (pk,))
    conn.executemany(
        "INSERT INTO memory_tags (tag, memory_pk) VALUES (?, ?)", [(t, pk) for t in tags]
    )


def index_memories(
    conn: sqlite3.Connection, project_pk: int, rows: list[tuple[int, Memory]]
) -> None:
    """``index_memory`` for many new memories of one scope, in one statement."""
    conn.executemany(
        f"INSERT INTO {memory_table(project_pk)} (rowid, title, content, tags) VALUES (?, ?, ?, ?)",
        [(pk, index_text(m.title), index_text(m.content), " ".join(m.tags)) for pk, m in rows],
    )


def write_many_tags(conn: sqlite3.Connection, rows: list[tuple[int, tuple[str, ...]]]) -> None:
    """The tag rows of new memories (which have none yet)."""
    conn.executemany(
        "INSERT INTO memory_tags (tag, memory_pk) VALUES (?, ?)",
        [(tag, pk) for pk, tags in rows for tag in tags],
    )


def write_many_files(conn: sqlite3.Connection, rows: list[tuple[int, tuple[str, ...]]]) -> None:
    """The file rows of new memories (which have none yet)."""
    conn.executemany(
        "INSERT INTO memory_files (path, memory_pk) VALUES (?, ?)",
        [(path, pk) for pk, files in rows for path in files],
    )

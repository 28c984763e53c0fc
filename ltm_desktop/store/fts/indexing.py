"""Keeping a memory's search index rows and tag rows in step with the memory."""

from __future__ import annotations

import sqlite3

from ltm_desktop.core.records import Memory
from ltm_desktop.store.fts.tables import CONTENTLESS, memory_table
from ltm_desktop.store.fts.text import index_text
from ltm_desktop.store.rows import decode_strings


def _indexed(title: str, content: str, tags: tuple[str, ...]) -> tuple[str, str, str]:
    """A memory's columns as its search table indexes them (and must be given them again
    to take the row out: the table keeps no copy)."""
    return index_text(title), index_text(content), " ".join(tags)


def _index(
    conn: sqlite3.Connection, table: str, pk: int, title: str, content: str, tags: tuple[str, ...]
) -> None:
    conn.execute(
        f"INSERT INTO {table} (rowid, title, content, tags) VALUES (?, ?, ?, ?)",
        (pk, *_indexed(title, content, tags)),
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


def unindex_memory(conn: sqlite3.Connection, pk: int, memory: Memory, project_pk: int) -> None:
    """Take an indexed memory out of its scope's table; ``memory`` as it was indexed (the
    stored row before the change): a contentless table is told what to take out."""
    table = memory_table(project_pk)
    if not _contentless(conn, table):  # a table a repair rebuilt as an older file had it
        conn.execute(f"DELETE FROM {table} WHERE rowid = ?", (pk,))
        return
    conn.execute(
        f"INSERT INTO {table} ({table}, rowid, title, content, tags) VALUES ('delete', ?, ?, ?, ?)",
        (pk, *_indexed(memory.title, memory.content, memory.tags)),
    )


def is_indexed(conn: sqlite3.Connection, pk: int, project_pk: int) -> bool:
    """Whether the scope's table has a row for ``pk`` (a lookup by rowid)."""
    table = memory_table(project_pk)
    return conn.execute(f"SELECT 1 FROM {table} WHERE rowid = ?", (pk,)).fetchone() is not None


def _contentless(conn: sqlite3.Connection, table: str) -> bool:
    """Whether the table was declared ``content = ''`` (FTS5 keeps options only there)."""
    row = conn.execute("SELECT sql FROM sqlite_master WHERE name = ?", (table,)).fetchone()
    return row is not None and CONTENTLESS.search(row[0]) is not None


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

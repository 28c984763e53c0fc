"""Keeping a memory's search index rows and tag rows in step with the memory."""

from __future__ import annotations

import sqlite3

from ltm_desktop.core.records import Memory
from ltm_desktop.store.fts_tables import memory_table
from ltm_desktop.store.fts_text import index_text


def index_memory(conn: sqlite3.Connection, pk: int, memory: Memory, project_pk: int) -> None:
    """Add to the scope's FTS table (which the store creates with the scope's first write)."""
    conn.execute(
        f"INSERT INTO {memory_table(project_pk)} (rowid, title, content, tags) VALUES (?, ?, ?, ?)",
        (pk, index_text(memory.title), index_text(memory.content), " ".join(memory.tags)),
    )


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

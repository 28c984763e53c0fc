"""Physical deletion of an erased memory, and leaving no copy of it in the files.

The writer connections run with ``secure_delete`` on (store/connection.py), so the space
a deleted row or page held is zeroed. A deleted FTS5 row leaves its terms in the index's
older segments until they are merged, so the scope's table is optimized (merged into one
segment). The WAL still holds page images from before: ``scrub`` copies it into the
database and truncates it.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from typing import Any

from ltm_desktop.store.fts.indexing import is_indexed, unindex_memory
from ltm_desktop.store.fts.tables import memory_table
from ltm_desktop.store.rows import MEMORY_COLUMNS, MEMORY_FROM, memory_from_row
from ltm_desktop.store.vectors.scope_index import next_seq

SCRUB_PATIENCE_S = 1.0  # how long an erase waits for the WAL to be truncatable
SCRUB_RETRY_S = 0.02


def trashed_ids(conn: sqlite3.Connection, project_pk: int) -> list[str]:
    rows = conn.execute(
        "SELECT id FROM memories WHERE project_pk = ? AND disabled = 1 ORDER BY pk", (project_pk,)
    )
    return [row[0] for row in rows]


def erase_memory(conn: sqlite3.Connection, pk: int, project_pk: int, fts: bool) -> None:
    """Delete the row and what was derived from it (``fts``: the scope has a search table).
    Its index row goes, and its pk is noted as erased (nothing else of it), so that
    every process's token sets and vectors drop it (store/vectors/scope_index.py)."""
    conn.execute("DELETE FROM memory_tags WHERE memory_pk = ?", (pk,))
    conn.execute(
        "INSERT INTO memory_index_erased (memory_pk, project_pk, seq) VALUES (?, ?, ?)",
        (pk, project_pk, next_seq(conn, project_pk)),
    )
    conn.execute("DELETE FROM memory_index WHERE memory_pk = ?", (pk,))
    if fts and is_indexed(conn, pk, project_pk):  # in the trash it is not; to be sure
        row = conn.execute(
            f"SELECT {MEMORY_COLUMNS} FROM {MEMORY_FROM} WHERE m.pk = ?", (pk,)
        ).fetchone()
        unindex_memory(conn, pk, memory_from_row(row), project_pk)
    conn.execute("DELETE FROM memories WHERE pk = ?", (pk,))


def merge_index(conn: sqlite3.Connection, project_pk: int) -> None:
    """Rewrite the scope's search index without the deleted rows' terms."""
    table = memory_table(project_pk)
    conn.execute(f"INSERT INTO {table} ({table}) VALUES ('optimize')")


def approved_into(conn: sqlite3.Connection, memory_id: str) -> list[str]:
    return [
        row[0] for row in conn.execute("SELECT id FROM proposals WHERE memory_id = ?", (memory_id,))
    ]


def erase_proposal(conn: sqlite3.Connection, proposal_id: str) -> None:
    conn.execute("DELETE FROM proposals WHERE id = ?", (proposal_id,))


def tombstone_history(conn: sqlite3.Connection, memory_id: str, stone: dict[str, Any]) -> int:
    return conn.execute(
        "UPDATE audit SET before = NULL, after = ?, nonce = NULL WHERE memory_id = ?",
        (json.dumps(stone, ensure_ascii=False), memory_id),
    ).rowcount


def scrub(conn: sqlite3.Connection, patience: float = SCRUB_PATIENCE_S) -> str | None:
    """Checkpoint the whole WAL into the database and truncate it; None when it was, else
    why not (a reader still uses old pages: the next checkpoint will). The background
    checkpointer may be mid-checkpoint (a second one is refused at once): retried a few
    times within ``patience`` seconds."""
    deadline = time.monotonic() + patience
    pause = threading.Event()
    while True:
        busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        if not busy:
            return None
        if time.monotonic() >= deadline:
            return (
                "another connection is still reading; the write-ahead log is cleared at the "
                "next checkpoint"
            )
        pause.wait(SCRUB_RETRY_S)

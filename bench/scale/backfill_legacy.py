"""The backfill as it was before its cursor (kept to time it against, in the same run).

Each batch asked for every memory still lacking a vector (a set built from the whole
index, then the first 256 by id: O(what is left) per batch), stored token set and vector
for each, and counted every memory for the progress: quadratic in all.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from ltm_desktop.core.records import Memory
from ltm_desktop.core.rules import similarity_tokens
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.writing import embedding_text
from ltm_desktop.store.rows import MEMORY_COLUMNS, MEMORY_FROM, memory_from_row

BATCH = 256
LACKING = (
    "SELECT memory_pk FROM memory_index WHERE token_bits IS NULL UNION "
    "SELECT memory_pk FROM memory_index WHERE model IS NULL OR model < ?1 OR model > ?1"
)


def unindexed(conn: sqlite3.Connection, model: str, after_id: str) -> list[Memory]:
    rows = conn.execute(
        f"SELECT {MEMORY_COLUMNS} FROM {MEMORY_FROM} WHERE m.pk IN ({LACKING}) "
        "AND m.disabled = 0 AND m.id > ?2 ORDER BY m.id LIMIT ?3",
        (model, after_id, BATCH),
    ).fetchall()
    return [memory_from_row(row) for row in rows]


def legacy_backfill(service: MemoryService, progress: Callable[[int], None] | None = None) -> int:
    """The old ``Backfill.run_once`` on ``service``'s store and lock; ``progress`` is
    told the count of memories with a vector after each batch."""
    backfill, store = service.backfill, service.store
    embedder = backfill._embedder
    lock = backfill._write_lock
    conn = sqlite3.connect(service.paths.db_path)
    filled, after = 0, ""
    try:
        while batch := unindexed(conn, embedder.model, after):
            after = batch[-1].id
            vectors = embedder.embed([embedding_text(m) for m in batch])
            with lock, store.write() as txn:
                for index, seen in enumerate(batch):
                    memory = txn.get_memory(seen.id)
                    if embedding_text(memory) != embedding_text(seen):
                        continue
                    txn.set_tokens(memory.id, similarity_tokens(memory.content))
                    txn.set_vector(memory.id, embedder.model, vectors[index])
                    filled += 1
            done, _ = store.index_progress(embedder.model)  # per batch, as it was
            if progress is not None:
                progress(done)
    finally:
        conn.close()
    return filled

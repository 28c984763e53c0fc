"""Grouping's reads over a ``MemoryStore``: newest memories, and each one's nearest
neighbours by the store's own vector search and full-text search.

Vectors are made with the service's embedder when it embeds in-process (the bundled
static model: microseconds a text); a remote embedder is not asked (no network beyond
the model that writes merges), so grouping then goes by words. An embedder that fails
turns vectors off for the rest of the run.
"""

from __future__ import annotations

import logging
import struct
from collections.abc import Callable, Iterator

from ltm_desktop.core.backend import MAX_PAGE, MemoryStore
from ltm_desktop.core.consolidation.grouping import WEAK_COSINE
from ltm_desktop.core.errors import EmbedderUnavailable
from ltm_desktop.core.records import ListQuery, Memory
from ltm_desktop.core.seams import Embedder
from ltm_desktop.core.search.query import parse_query
from ltm_desktop.core.writing import embedding_text

log = logging.getLogger(__name__)
PAGE = 500


class StoreNeighbours:
    """``grouping.Neighbours`` for one run (vectors are cached for it)."""

    def __init__(self, store: MemoryStore, embedder: Embedder, now: Callable[[], float]) -> None:
        self._store = store
        self._embedder = embedder
        self._now = now
        self._vectors: dict[str, tuple[float, ...] | None] = {}
        self.by_meaning = bool(embedder.model) and embedder.inline

    def seeds(self, project_id: str, limit: int) -> Iterator[Memory]:
        offset = 0
        while offset < limit:
            size = min(PAGE, limit - offset, MAX_PAGE)
            query = ListQuery(order_by="updated_at", limit=size, offset=offset)
            page = self._store.list_memories(project_id, query, self._now())
            yield from page
            if len(page) < size:
                return
            offset += size

    def candidates(self, project_id: str, memory: Memory, limit: int) -> list[Memory]:
        found: dict[str, Memory] = {}
        vector = self._vector(memory)
        if vector is not None:
            packed = struct.pack(f"<{len(vector)}f", *vector)
            near = self._store.search_vectors(
                [project_id], self._embedder.model, packed, limit + 1, self._now(), WEAK_COSINE
            )
            found.update((m.id, m) for m, _score in near)
        query = parse_query(memory.content)
        if not query.is_empty:
            hits = self._store.search_memories([project_id], query, limit + 1, self._now())
            found.update((m.id, m) for m, *_ in hits if m.id not in found)
        found.pop(memory.id, None)
        return list(found.values())

    def cosine(self, a: Memory, b: Memory) -> float | None:
        first, second = self._vector(a), self._vector(b)
        if first is None or second is None:
            return None
        return sum(x * y for x, y in zip(first, second, strict=True))

    def _vector(self, memory: Memory) -> tuple[float, ...] | None:
        if not self.by_meaning:
            return None
        if memory.id not in self._vectors:
            try:
                made = self._embedder.embed([embedding_text(memory)])
            except EmbedderUnavailable as exc:
                log.info("consolidation goes by words: the embedder failed (%s)", exc)
                self.by_meaning = False
                return None
            raw = made[0] if made else b""
            self._vectors[memory.id] = struct.unpack(f"<{len(raw) // 4}f", raw) if raw else None
        return self._vectors[memory.id]

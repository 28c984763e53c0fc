"""Recent search results, reused until anything is written.

Agents repeat searches (a hook that searches each prompt, a question asked again
next turn). A cached hit is only (memory id, score, snippet, why it matched, its
similarity in meaning): the memories are read again on reuse, so counters are fresh,
and a memory removed or expired since makes the search run again. Any audited change (every change to a
memory, in this process or another) makes every entry stale; counting uses does not.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence

from ltm_desktop.core.backend import MemoryStore
from ltm_desktop.core.records import SearchHit
from ltm_desktop.core.search.query import ParsedQuery

CachedHit = tuple[str, float, str, str, float | None]


def search_key(
    scopes: Sequence[str], query: ParsedQuery, count: int, meaning: str | None = None
) -> Hashable:
    """What a search's answer depends on; ``meaning`` is the text a semantic search
    embedded, with its model (None: words only)."""
    return (tuple(scopes), query, count, meaning)


class SearchCache:
    """A small LRU of search results; capacity 0 turns it off (benchmarks measure the
    search engine itself that way)."""

    def __init__(self, capacity: int = 256) -> None:
        self._capacity = capacity
        self._entries: OrderedDict[Hashable, tuple[Hashable, list[CachedHit]]] = OrderedDict()
        self._lock = threading.Lock()

    def lookup(self, key: Hashable, version: Hashable) -> list[CachedHit] | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or entry[0] != version:
                return None
            self._entries.move_to_end(key)
            return entry[1]

    def store(self, key: Hashable, version: Hashable, hits: list[CachedHit]) -> None:
        if self._capacity <= 0:
            return
        with self._lock:
            self._entries[key] = (version, hits)
            self._entries.move_to_end(key)
            while len(self._entries) > self._capacity:
                self._entries.popitem(last=False)

    def holds(self, key: Hashable) -> bool:
        """Whether some answer (maybe stale) is kept for this search."""
        with self._lock:
            return key in self._entries

    def cached(
        self, store: MemoryStore, key: Hashable, version: Hashable, now: float
    ) -> list[SearchHit] | None:
        """The cached hits with fresh memories, or None when the search has to run.

        Costs one read of at most ``count`` memories, never a search.
        """
        cached = self.lookup(key, version)
        if cached is None:
            return None
        fresh = {m.id: m for m in store.get_memories([hit[0] for hit in cached])}
        if not all(
            i in fresh and not fresh[i].disabled and not fresh[i].is_expired(now)
            for i, *_ in cached
        ):
            return None
        return [
            SearchHit(fresh[i], score, snippet, why, similarity)
            for i, score, snippet, why, similarity in cached
        ]

    def search(
        self,
        store: MemoryStore,
        key: Hashable,
        version: Hashable,
        now: float,
        run: Callable[[], list[SearchHit]],
    ) -> list[SearchHit]:
        """``run()``, answered from the cache when ``version`` still holds and every cached
        memory is still active and unexpired."""
        hits = self.cached(store, key, version, now)
        if hits is not None:
            return hits
        hits = run()
        self.store(
            key,
            version,
            [(h.memory.id, h.score, h.snippet, h.matched, h.similarity) for h in hits],
        )
        return hits

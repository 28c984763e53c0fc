"""Recent search results, reused until anything is written.

Agents repeat searches (a hook that searches each prompt, a question asked again
next turn). A cached hit is only (memory id, score, snippet): the memories are
read again on reuse, so counters are fresh, and a memory removed or expired
since makes the search run again. Any audited change (every change to a memory,
in this process or another) makes every entry stale; counting uses does not.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable, Sequence

from ltm_desktop.core.backend import MemoryStore
from ltm_desktop.core.query import ParsedQuery
from ltm_desktop.core.records import SearchHit

CachedHit = tuple[str, float, str]


class SearchCache:
    """A small LRU of search results keyed by (scopes, parsed query, limit); capacity 0
    turns it off (benchmarks measure the search engine itself that way)."""

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

    def holds(self, scopes: Sequence[str], query: ParsedQuery, count: int) -> bool:
        """Whether some answer (maybe stale) is kept for this search."""
        with self._lock:
            return _key(scopes, query, count) in self._entries

    def cached(
        self,
        store: MemoryStore,
        scopes: Sequence[str],
        query: ParsedQuery,
        count: int,
        version: Hashable,
        now: float,
    ) -> list[SearchHit] | None:
        """The cached hits with fresh memories, or None when the search has to run.

        Costs one read of at most ``count`` memories, never a search.
        """
        cached = self.lookup(_key(scopes, query, count), version)
        if cached is None:
            return None
        fresh = {m.id: m for m in store.get_memories([i for i, _, _ in cached])}
        if not all(
            i in fresh and not fresh[i].disabled and not fresh[i].is_expired(now)
            for i, _, _ in cached
        ):
            return None
        return [SearchHit(fresh[i], score, snippet) for i, score, snippet in cached]

    def search(
        self,
        store: MemoryStore,
        scopes: Sequence[str],
        query: ParsedQuery,
        count: int,
        version: Hashable,
        now: float,
    ) -> list[SearchHit]:
        """``store.search_memories``, answered from the cache when ``version`` still holds
        and every cached memory is still active and unexpired."""
        hits = self.cached(store, scopes, query, count, version, now)
        if hits is not None:
            return hits
        found = store.search_memories(scopes, query, count, now)
        hits = [SearchHit(memory, score, snippet) for memory, score, snippet in found]
        self.store(
            _key(scopes, query, count), version, [(h.memory.id, h.score, h.snippet) for h in hits]
        )
        return hits


def _key(scopes: Sequence[str], query: ParsedQuery, count: int) -> Hashable:
    return (tuple(scopes), query, count)

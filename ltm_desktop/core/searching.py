"""Searching memories and observations (part of MemoryService).

Search hits go through the cache (reused until anything is written), then any
external provider and embedder; agents' searches count a use of every hit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ltm_desktop.core import rules
from ltm_desktop.core.backend import MemoryStore
from ltm_desktop.core.query import ParsedQuery, parse_query
from ltm_desktop.core.records import GLOBAL_PROJECT_ID, RecallHit, SearchHit
from ltm_desktop.core.retrieval import (
    OBSERVATION_SCORE_WEIGHT,
    check_kinds,
    check_limit,
    merge_external,
    rerank,
)
from ltm_desktop.core.seams import Embedder, ExternalProvider, NoEmbedder, NoExternalProvider
from ltm_desktop.core.search_cache import SearchCache
from ltm_desktop.core.uses import UseCounter


class SearchReads:
    """The service's searches; the service provides the attributes below."""

    store: MemoryStore
    now: Callable[[], float]
    _cache: SearchCache
    _uses: UseCounter
    _embedder: Embedder
    _provider: ExternalProvider

    def _with_global(self, project_id: str, include_global: bool) -> list[str]:
        if include_global and project_id != GLOBAL_PROJECT_ID:
            return [project_id, GLOBAL_PROJECT_ID]
        return [project_id]

    def search(
        self,
        project_id: str,
        text: object,
        *,
        limit: object = None,
        include_global: bool = True,
        reinforce: bool = False,
        typing: bool = False,
    ) -> list[SearchHit]:
        """Ranked hits for ``text`` in the scope (plus global by default).

        Args:
            reinforce: count a use of every hit; agents do, a person browsing does not.
            typing: the text is being typed, so its last word is a prefix.
        """
        count = check_limit(limit, default=5)
        hits = self._hits(project_id, text, count, include_global, typing)
        return self._deliver(hits, reinforce)

    def search_if_cached(
        self,
        project_id: str,
        text: object,
        *,
        limit: object = None,
        include_global: bool = True,
        reinforce: bool = False,
    ) -> list[SearchHit] | None:
        """What ``search`` would answer, but only when its cache holds the answer, else None.

        It never runs a search (it reads at most ``limit`` memories), so the API server
        answers repeated searches on its event loop instead of paying a thread hop.
        """
        count = check_limit(limit, default=5)
        if not isinstance(self._provider, NoExternalProvider) or not isinstance(
            self._embedder, NoEmbedder
        ):
            return None  # they may do I/O of their own
        scopes = self._with_global(rules.check_project_id(project_id), include_global)
        query = parse_query(text)
        if not self._cache.holds(scopes, query, count):
            return None  # a first search: do not even read the version
        version = self.store.last_event_seq()
        hits = self._cache.cached(self.store, scopes, query, count, version, self.now())
        return None if hits is None else self._deliver(hits, reinforce)

    def _deliver(self, hits: list[SearchHit], reinforce: bool) -> list[SearchHit]:
        """Count a use of each hit if asked, and show counts not yet written."""
        if reinforce and hits:
            self._uses.add((h.memory.id for h in hits), self.now())
        return [SearchHit(self._uses.overlay(h.memory), h.score, h.snippet) for h in hits]

    def _hits(
        self, project_id: str, text: object, count: int, include_global: bool, typing: bool
    ) -> list[SearchHit]:
        """Search hits as stored (no pending uses added, none counted)."""
        scopes = self._with_global(rules.check_project_id(project_id), include_global)
        query = parse_query(text, typing=typing)
        hits = self._search_store(scopes, query, count)
        hits = merge_external(self._provider, hits, scopes, text, count)
        return rerank(self._embedder, hits, text)

    def _search_store(self, scopes: list[str], query: ParsedQuery, count: int) -> list[SearchHit]:
        """The store's hits, from the cache when nothing was written since the same search."""
        # Every change to a memory, in any process, adds an audit event; use counts do not,
        # so searches stay cached while agents (here or in other workers) keep reading.
        version = self.store.last_event_seq()
        return self._cache.search(self.store, scopes, query, count, version, self.now())

    def recall(
        self,
        project_id: str,
        text: object,
        *,
        kinds: Sequence[str] | None = None,
        limit: object = None,
        include_global: bool = True,
        reinforce: bool = True,
    ) -> list[RecallHit]:
        """Memories and observations for ``text``, merged by score.

        Observation scores are BM25 scaled by OBSERVATION_SCORE_WEIGHT, so that a
        memory and an observation matching equally well list the memory first.
        """
        count = check_limit(limit, default=5)
        wanted = check_kinds(kinds)
        hits: list[RecallHit] = []
        if "memory" in wanted:
            hits += [
                RecallHit("memory", h.score, h.snippet, memory=h.memory)
                for h in self._hits(project_id, text, count, include_global, typing=False)
            ]
        if "observation" in wanted:
            scopes = self._with_global(rules.check_project_id(project_id), include_global)
            found = self.store.search_observations(scopes, parse_query(text), count)
            hits += [
                RecallHit("observation", score * OBSERVATION_SCORE_WEIGHT, snippet, observation=o)
                for o, score, snippet in found
            ]
        hits.sort(key=lambda h: (-h.score, h.kind != "memory"))
        hits = hits[:count]
        used = [h.memory.id for h in hits if h.memory is not None]
        if reinforce and used:
            self._uses.add(used, self.now())
        return [
            RecallHit(h.kind, h.score, h.snippet, memory=self._uses.overlay(h.memory))
            if h.memory is not None
            else h
            for h in hits
        ]

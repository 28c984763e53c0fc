"""Searching memories and observations: ``MemoryService.search``.

A search runs by words (the store's full-text index) and, with an embedder, by meaning
(the store's vectors); ``core.hybrid`` fuses both. Hits go through the cache (reused
until anything is written), then any external provider; agents' searches count a use
of every hit. An embedder that fails leaves search by words: never an error.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import replace

from ltm_desktop.core import rules
from ltm_desktop.core.backend import MemoryStore
from ltm_desktop.core.errors import EmbedderUnavailable
from ltm_desktop.core.projects.ambient import AmbientScopes
from ltm_desktop.core.records import (
    IndexStatus,
    Memory,
    RecallHit,
    SearchFilter,
    SearchHit,
)
from ltm_desktop.core.seams import Embedder, ExternalProvider, NoExternalProvider
from ltm_desktop.core.search.backfill import Backfill
from ltm_desktop.core.search.cache import SearchCache, search_key
from ltm_desktop.core.search.hybrid import CENTRE, EVERY_TERM, NEAR_SHARE, RRF_K, fuse, with_prior
from ltm_desktop.core.search.query import (
    MAX_QUERY_CHARS,
    ParsedQuery,
    parse_query,
    split_words,
    term_in,
)
from ltm_desktop.core.search.retrieval import (
    OBSERVATION_SCORE_WEIGHT,
    check_kinds,
    check_limit,
    merge_external,
)
from ltm_desktop.core.stale.named_files import split_file_filter
from ltm_desktop.core.uses import UseCounter
from ltm_desktop.core.writing import Embedding

FILE_SEARCH_DEPTH = 1_000  # memories naming one file that a ``file:`` search considers
FILE_SNIPPET_CHARS = 160


class SearchService:
    """Searches by words and meaning, through the cache; counts agents' uses of hits."""

    def __init__(
        self,
        store: MemoryStore,
        *,
        clock: Callable[[], float],
        cache: SearchCache,
        uses: UseCounter,
        embedder: Embedder,
        provider: ExternalProvider,
        backfill: Backfill,
        ambient: AmbientScopes | None = None,
    ) -> None:
        """``ambient``: the scopes searched with every project (default: ``global``)."""
        self.store = store
        self._ambient = ambient or AmbientScopes.shared()
        self.now = clock
        self._cache = cache
        self._uses = uses
        self._embedder = embedder
        self._provider = provider
        self.backfill = backfill

    def check_embedder(self) -> IndexStatus:
        """``index_status`` after making sure the embedder works (it loads the model)."""
        try:
            self._embedder.embed(["status"])
        except EmbedderUnavailable:
            pass  # its problem() says why
        return self.index_status()

    def index_status(self) -> IndexStatus:
        """Semantic search: the model, how many memories have its vector, any problem."""
        return self.backfill.status()

    def vector_for(self, text: str, *, now: bool = False) -> Embedding | None:
        """(model, vector) of a new memory's ``text``, or None to leave it to the backfill:
        when it runs (the app, ``serve``: off the writer's path, batched), for an embedder
        that does not embed inline (remote), or one that cannot run.

        Args:
            now: embed now even when the backfill runs (an edit: found by meaning at once).
        """
        if not self._embedder.inline or (self.backfill.active and not now):
            return None
        try:
            vectors = self._embedder.embed([text])
        except EmbedderUnavailable:
            return None
        return (self._embedder.model, vectors[0]) if vectors else None

    def _with_global(self, project_id: str, include_global: bool) -> list[str]:
        return self._ambient.with_ambient(project_id, include_global)

    def query(
        self,
        project_id: str,
        text: object,
        *,
        limit: object = None,
        include_global: bool = True,
        reinforce: bool = False,
        typing: bool = False,
        where: SearchFilter | None = None,
    ) -> list[SearchHit]:
        """Ranked hits for ``text`` in the scope (plus global by default).

        Args:
            reinforce: count a use of every hit; agents do, a person browsing does not.
            typing: the text is being typed, so its last word is a prefix.
            where: the list's filters (category, tag, removed and expired memories too),
                applied by the store's queries.
        """
        count = check_limit(limit, default=5)
        path, rest = split_file_filter(text)
        if path is not None:
            hits = self._file_hits(project_id, path, rest, count, include_global, typing, where)
        else:
            hits = self._hits(project_id, text, count, include_global, typing, where)
        return self._deliver(hits, count, reinforce)

    def _file_hits(
        self,
        project_id: str,
        path: str,
        rest: object,
        count: int,
        include_global: bool,
        typing: bool,
        where: SearchFilter | None = None,
    ) -> list[SearchHit]:
        """``file:PATH`` (``core.files``): the memories naming the file, best first; with
        more words, the best of a deeper search by them that name it (within ``where``)."""
        scopes = self._with_global(rules.check_project_id(project_id), include_global)
        now = self.now()
        named = self.store.memories_naming(scopes, path, FILE_SEARCH_DEPTH, now)
        if where is not None:  # the list's filters (category, tag, New)
            named = [m for m in named if where.admits(m, now)]
        if not isinstance(rest, str) or not rest.strip():
            return [
                SearchHit(m, float(len(named) - rank), m.content[:FILE_SNIPPET_CHARS])
                for rank, m in enumerate(named)
            ]
        ids = {m.id for m in named}
        depth = max(count, FILE_SEARCH_DEPTH // 10)
        return [
            h
            for h in self._hits(project_id, rest, depth, include_global, typing, where)
            if h.memory.id in ids
        ]

    def cached(
        self,
        project_id: str,
        text: object,
        *,
        limit: object = None,
        include_global: bool = True,
        reinforce: bool = False,
    ) -> list[SearchHit] | None:
        """What ``query`` would answer, but only when its cache holds the answer, else None.

        It never runs a search (it reads at most ``limit`` memories), so the API server
        answers repeated searches on its event loop instead of paying a thread hop.
        """
        count = check_limit(limit, default=5)
        if not isinstance(self._provider, NoExternalProvider) or split_file_filter(text)[0]:
            return None  # it may do I/O of its own; a file filter is not cached
        scopes = self._with_global(rules.check_project_id(project_id), include_global)
        key = self._key(scopes, parse_query(text), count, text)
        if not self._cache.holds(key):
            return None  # a first search: do not even read the version
        hits = self._cache.cached(self.store, key, self._version(scopes), self.now())
        return None if hits is None else self._deliver(hits, count, reinforce)

    def _deliver(self, hits: list[SearchHit], count: int, reinforce: bool) -> list[SearchHit]:
        """The best ``count`` with uses not yet written shown and weighed (the prior is
        applied here, so a cached answer follows uses made since), counting a use of
        each if asked."""
        now = self.now()
        stored = {h.memory.id: h.memory for h in hits}
        best = with_prior([replace(h, memory=self._uses.overlay(h.memory)) for h in hits], now)
        best = best[:count]
        if reinforce and best:
            self._uses.add((h.memory.id for h in best), now)
            best = [replace(h, memory=self._uses.overlay(stored[h.memory.id])) for h in best]
        return best

    def _key(self, scopes: list[str], query: ParsedQuery, count: int, text: object) -> Hashable:
        model = self._embedder.model
        meaning = f"{model}\n{text}" if model and isinstance(text, str) else None
        return search_key(scopes, query, count, meaning)

    def _version(self, scopes: Sequence[str]) -> Hashable:
        # Every change to a memory, in any process, adds an audit event; use counts do not,
        # so searches stay cached while agents (here or in other workers) keep reading.
        # Token sets and vectors written by a backfill (this process's or another
        # worker's) are not events: the scopes' index version follows them.
        return (self.store.last_event_seq(), self.store.index_version(scopes))

    def _hits(
        self,
        project_id: str,
        text: object,
        count: int,
        include_global: bool,
        typing: bool,
        where: SearchFilter | None = None,
    ) -> list[SearchHit]:
        """Search hits as stored (no pending uses added, none counted)."""
        scopes = self._with_global(rules.check_project_id(project_id), include_global)
        query = parse_query(text, typing=typing)
        key = self._key(scopes, query, count, text)
        if where is not None and where != SearchFilter():
            key = (key, where)
        else:
            where = None
        now = self.now()

        def run() -> list[SearchHit]:
            lexical = self.store.search_memories(scopes, query, count, now, where)
            exact = sum(1 for hit in lexical if hit[3] == EVERY_TERM)
            # Memories holding every word outrank any found by meaning alone: with enough
            # of them, search by meaning could only reorder them, and is not run. Nor is it
            # for a phrase in quotes: the person asked for those very words.
            semantic = []
            if exact < count and not query.quoted:
                semantic = self._by_meaning(scopes, meaning_text(query, text), count, now, where)
                semantic = [hit for hit in semantic if not excluded(query, hit[0])]
            return fuse(lexical, semantic, self._embedder.floor)

        hits = self._cache.search(self.store, key, self._version(scopes), now, run)
        return merge_external(self._provider, hits, scopes, text, len(hits))

    def warm(self, project_id: str) -> None:
        """Load what the first search by meaning of ``project_id`` needs (the model, the
        scopes' vectors) before anyone waits for it: on a worker when the app opens a
        scope. Without it the first search of a 60,000-memory scope took seconds."""
        self._by_meaning(self._with_global(project_id, True), "warm up", 1, self.now())

    def _by_meaning(
        self,
        scopes: list[str],
        text: object,
        count: int,
        now: float,
        where: SearchFilter | None = None,
    ) -> list[tuple[Memory, float]]:
        """The memories nearest in meaning to ``text`` (none without a working embedder)."""
        model = self._embedder.model
        if not model or not isinstance(text, str) or not text.strip():
            return []
        try:
            vectors = self._embedder.embed([text[:MAX_QUERY_CHARS]])
        except EmbedderUnavailable:
            return []  # logged once by the embedder, shown by search_status()
        if not vectors:
            return []
        least = self._embedder.floor * NEAR_SHARE  # core.hybrid.semantic_hits decides
        return self.store.search_vectors(
            scopes, model, vectors[0], count, now, least, where, centre=CENTRE
        )

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
        stored_memories: list[Memory] = []
        if "memory" in wanted:
            found = self._hits(project_id, text, count, include_global, typing=False)
            stored_memories = [h.memory for h in found]
            hits += [
                RecallHit("memory", h.score, h.snippet, memory=h.memory, matched=h.matched)
                for h in self._deliver(found, count, reinforce=False)
            ]
        if "observation" in wanted:
            scopes = self._with_global(rules.check_project_id(project_id), include_global)
            observed = self.store.search_observations(scopes, parse_query(text), count)
            hits += [  # on the memories' fused scale: a rank in one more list
                RecallHit(
                    "observation",
                    OBSERVATION_SCORE_WEIGHT / (RRF_K + rank),
                    snippet,
                    observation=o,
                )
                for rank, (o, _, snippet) in enumerate(observed, start=1)
            ]
        hits.sort(key=lambda h: (-h.score, h.kind != "memory"))
        hits = hits[:count]
        used = [h.memory.id for h in hits if h.memory is not None]
        if reinforce and used:
            self._uses.add(used, self.now())
        stored = {m.id: m for m in stored_memories}
        return [
            replace(h, memory=self._uses.overlay(stored[h.memory.id]))
            if h.memory is not None
            else h
            for h in hits
        ]


def meaning_text(query: ParsedQuery, text: object) -> object:
    """What search by meaning embeds: the text as typed, without the words it excludes
    (``deploy -docker`` is not near Docker)."""
    if not query.negative:
        return text
    return " ".join(" ".join(term.words) for term in query.terms if not term.negated)


def excluded(query: ParsedQuery, memory: Memory) -> bool:
    """Whether ``memory`` holds a word the query excludes (``-docker``): left out of the
    hits by meaning too, as the words search leaves it out."""
    words = split_words(" ".join([memory.title, memory.content, *memory.tags]))
    return any(term_in(term, words) for term in query.negative)

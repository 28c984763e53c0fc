"""Hybrid ranking: words (BM25) and meaning (vector similarity) fused into one order.

The rules, as the README states them:

- A memory holding every word of the query (an *exact* lexical hit) always ranks above
  one that does not: a vague semantic hit never pushes it down.
- Within each of the two tiers, hits are ranked by reciprocal rank fusion:

      score = sum over lists of  weight / (RRF_K + rank in that list)

  over the lexical list (weight 1 for every word, 0.8 for two of them, 0.5 for any one)
  and the semantic list (weight 1). Ranks are counted per scope for words, since BM25
  of a small scope (global, whose statistics come from few rows) is not comparable with
  a large one's: each scope's best hit ranks first. Equal scores share a rank.
- The semantic list is *centred*: memories are ordered by their similarity to the query
  less the mean vector of the memories searched (counted as if ``CENTRE`` more vectors,
  all zero, were in it, so a scope of a few memories is hardly centred). What all of a
  user's memories share (they are about software) then makes no memory near every
  query: with the static model, 31 of the retrieval benchmark's 40 paraphrases have
  their memory among the 5 nearest centred, 28 plain (bench/retrieval_bench.py).
- The floor is on the plain cosine, in two steps: meaning counts for a query only when
  one of the memories it ranks nearest reaches the embedder's floor (a query about
  nothing stored gets no semantic hit), and then every memory down to ``NEAR_SHARE`` of
  the floor is in the semantic list; nothing below that is returned.
- The fused score is multiplied by the memory's search prior (``core.ranking``: its
  importance and its recent uses), and exact hits get 1 added, so ``score`` always
  orders the hits.
- A query with no lexical match gets the semantic hits above the floor, and nothing
  below it. When at least ``limit`` memories hold every word, the search by meaning is
  not run (``core.searching``): it could only reorder them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import replace

from ltm_desktop.core.backend import MemoryHit
from ltm_desktop.core.ranking import search_prior
from ltm_desktop.core.records import MATCHED_MEANING, MATCHED_SOME, MATCHED_WORDS, Memory, SearchHit

RRF_K = 5.0
CENTRE = 50.0  # the searched scopes' mean vector counts as if n + CENTRE vectors made it
NEAR_SHARE = 0.75  # once a query means something here, hits down to 3/4 of the floor count
EVERY_TERM, TWO_TERMS, ANY_TERM = 0, 1, 2
LEXICAL_WEIGHTS = {EVERY_TERM: 1.0, TWO_TERMS: 0.8, ANY_TERM: 0.5}
SEMANTIC_WEIGHT = 1.0
EXACT_BONUS = 1.0  # above any fused score: RRF sums stay below (1 + 1) / (RRF_K + 1) * 1.3
SNIPPET_CHARS = 160


def _ranks(scored: Iterable[tuple[str, float]]) -> dict[str, int]:
    """Competition ranks (1, 2, 2, 4) by score, best first; equal scores share a rank."""
    ordered = sorted(scored, key=lambda pair: -pair[1])
    ranks: dict[str, int] = {}
    for position, (key, score) in enumerate(ordered, start=1):
        if key in ranks:
            continue
        previous = ordered[position - 2] if position > 1 else None
        if previous is not None and previous[1] == score:
            ranks[key] = ranks[previous[0]]
        else:
            ranks[key] = position
    return ranks


def plain_snippet(content: str) -> str:
    """The start of the content, for a hit found by meaning alone (no word to mark)."""
    text = " ".join(content.split())
    if len(text) <= SNIPPET_CHARS:
        return text
    cut = text[: SNIPPET_CHARS - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > SNIPPET_CHARS // 2 else cut) + "…"


def semantic_hits(
    semantic: Sequence[tuple[Memory, float]], floor: float
) -> list[tuple[Memory, float]]:
    """The memories that count as near in meaning: none unless one of them reaches
    ``floor``, then those down to ``NEAR_SHARE * floor``, in the store's (centred) order."""
    if not any(score >= floor for _, score in semantic):
        return []
    return [(m, s) for m, s in semantic if s >= floor * NEAR_SHARE]


def fuse(
    lexical: Sequence[MemoryHit], semantic: Sequence[tuple[Memory, float]], floor: float
) -> list[SearchHit]:
    """Every hit of both searches, best first, scored without the prior (``with_prior``
    applies it when the hits are delivered, with the use counts of that moment)."""
    memories: dict[str, Memory] = {}
    snippets: dict[str, str] = {}
    stages: dict[str, int] = {}
    per_list: dict[tuple[str, int], list[tuple[str, float]]] = defaultdict(list)
    for memory, bm25, snippet, found_by in lexical:
        if memory.id in stages:
            continue
        memories[memory.id], snippets[memory.id], stages[memory.id] = memory, snippet, found_by
        per_list[(memory.project_id, found_by)].append((memory.id, bm25))
    fused: dict[str, float] = defaultdict(float)
    position: dict[str, int] = {}  # in its scope's list: equal scores go round the scopes
    for (_, found_by), scored in per_list.items():
        for memory_id, rank in _ranks(scored).items():
            fused[memory_id] += LEXICAL_WEIGHTS.get(found_by, 0.5) / (RRF_K + rank)
        for index, (memory_id, _) in enumerate(sorted(scored, key=lambda pair: -pair[1])):
            position[memory_id] = index
    close = semantic_hits(semantic, floor)
    similarity = {memory.id: cosine for memory, cosine in close}
    for memory, _ in close:
        memories.setdefault(memory.id, memory)
    for rank, (memory, _) in enumerate(close, start=1):  # the store's order (centred)
        fused[memory.id] += SEMANTIC_WEIGHT / (RRF_K + rank)
    hits: list[tuple[SearchHit, int]] = []
    for memory_id, score in fused.items():
        memory = memories[memory_id]
        stage = stages.get(memory_id)
        total = score + (EXACT_BONUS if stage == EVERY_TERM else 0)
        cosine = similarity.get(memory_id)
        if stage is None:
            snippet, matched = plain_snippet(memory.content), MATCHED_MEANING
        else:
            snippet = snippets[memory_id]
            matched = MATCHED_WORDS if stage == EVERY_TERM else MATCHED_SOME
        hit = SearchHit(memory, total, snippet, matched, cosine)
        hits.append((hit, position.get(memory_id, 0)))
    hits.sort(key=lambda pair: (-pair[0].score, pair[1], pair[0].memory.id))
    return [hit for hit, _ in hits]


def with_prior(hits: Sequence[SearchHit], now: float) -> list[SearchHit]:
    """``fuse``'s hits with the fused part of each score multiplied by the memory's search
    prior (importance, recent uses), re-sorted; ties keep ``fuse``'s order."""
    weighed = []
    for hit in hits:
        bonus = EXACT_BONUS if hit.matched == MATCHED_WORDS else 0.0
        score = bonus + (hit.score - bonus) * search_prior(hit.memory, now)
        weighed.append(replace(hit, score=score))
    weighed.sort(key=lambda h: -h.score)  # stable
    return weighed

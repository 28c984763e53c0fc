"""Search helpers shared by the service: limits, recall kinds, reranking, merging.

Kept apart from the service so that the facade reads as a list of operations.
"""

from __future__ import annotations

from collections.abc import Sequence

from ltm_desktop.core.errors import InvalidInput, echoed
from ltm_desktop.core.records import SearchHit
from ltm_desktop.core.rules import shown
from ltm_desktop.core.seams import Embedder, ExternalProvider

MAX_SEARCH_LIMIT = 100
OBSERVATION_SCORE_WEIGHT = 0.75
RECALL_KINDS = ("memory", "observation")


def check_limit(value: object, default: int, maximum: int = MAX_SEARCH_LIMIT) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= maximum:
        raise InvalidInput(
            f"limit must be a whole number from 1 to {maximum}; got {shown(value)}", "limit"
        )
    return value


def merge_external(
    provider: ExternalProvider, hits: list[SearchHit], scopes: list[str], text: object, limit: int
) -> list[SearchHit]:
    """Hits from an external memory provider, merged in by score."""
    if not isinstance(text, str):
        return hits
    extra = provider.search(scopes, text, limit)
    if not extra:
        return hits
    known = {h.memory.id for h in hits}
    merged = hits + [h for h in extra if h.memory.id not in known]
    return sorted(merged, key=lambda h: -h.score)[:limit]


def rerank(embedder: Embedder, hits: list[SearchHit], text: object) -> list[SearchHit]:
    """Semantic re-ranking when an embedder is configured; BM25 order otherwise."""
    if len(hits) < 2 or not isinstance(text, str):
        return hits
    vectors = embedder.embed([text] + [h.memory.content for h in hits])
    if not vectors:
        return hits
    query_vector, *hit_vectors = vectors
    scored = zip(hits, (_dot(query_vector, v) for v in hit_vectors), strict=True)
    return [hit for hit, _ in sorted(scored, key=lambda pair: -pair[1])]


def _dot(a: Sequence[float], b: Sequence[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=False))


def check_kinds(kinds: Sequence[str] | None) -> set[str]:
    if kinds is None:
        return set(RECALL_KINDS)
    if isinstance(kinds, str) or not isinstance(kinds, Sequence) or not kinds:
        raise InvalidInput(
            "kinds must be a non-empty list of 'memory' and/or 'observation'", "kinds"
        )
    unknown = [k for k in kinds if k not in RECALL_KINDS]
    if unknown:
        raise InvalidInput(
            f"kinds may only contain 'memory' and 'observation', not {echoed(unknown[0])}", "kinds"
        )
    return set(kinds)

"""Search helpers shared by the service: limits, recall kinds, reranking, merging.

Kept apart from the service so that the facade reads as a list of operations.
"""

from __future__ import annotations

from collections.abc import Sequence

from ltm_desktop.core.errors import InvalidInput, echoed
from ltm_desktop.core.records import SearchHit
from ltm_desktop.core.rules import shown
from ltm_desktop.core.seams import ExternalProvider

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

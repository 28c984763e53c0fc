"""What the Overview (core.overview) asks of a backend: a few counts, grouped in the store.

Times are cut into buckets by ``edges``: ascending POSIX timestamps chosen by the core
(local midnights, then "now"). A time's bucket is the number of edges at or below it, so
bucket 0 is before the first edge and ``len(edges)`` is at or after the last. The store
only counts; every meaning (weeks, days, what is stale, who "you" is) is the core's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

# (category, bucket of created_at, bucket of its removal or None while it is not removed,
#  bucket from which it is a stale candidate or None when it cannot be one, how many)
TimelineRow = tuple[str, int, int | None, int | None, int]
# (importance, use bucket: how many of ``use_edges`` are <= use_count, how many, newest
#  last_used_at among them or None)
UseRow = tuple[int, int, int, float | None]
# (actor, bucket of ``at``, whether its action is one of ``removals``, how many)
EventRow = tuple[str, int, bool, int]


class OverviewReads(Protocol):
    """Aggregates over one scope (``project_id``) or every scope (None); an unknown scope
    has none. Each is one pass over the rows or index entries it counts."""

    def last_event_seq(self) -> int:
        """The audit history's head (what a kept Overview is checked against)."""
        ...

    def memory_timeline(
        self,
        project_id: str | None,
        edges: Sequence[float],
        stale_max_importance: int,
        stale_age: float,
    ) -> list[TimelineRow]:
        """Every memory (removed ones too), grouped by category and by the buckets of its
        creation, of its removal (``disabled_at``; ``updated_at`` if that is missing) and
        of the time it became a stale candidate: importance <= ``stale_max_importance``,
        never used, at its last update or review plus ``stale_age`` seconds."""
        ...

    def use_grid(self, project_id: str | None, use_edges: Sequence[int]) -> list[UseRow]:
        """Memories not removed, grouped by importance and by use bucket."""
        ...

    def event_counts(
        self, project_id: str | None, edges: Sequence[float], removals: Sequence[str]
    ) -> list[EventRow]:
        """Audit events at or after ``edges[0]``, grouped by actor, bucket and whether their
        action is one of ``removals``."""
        ...

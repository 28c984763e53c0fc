"""The in-memory backend's Overview counts (mixed into ``memory_store``): naive scans.

Storage only, like the rest of the double: it counts what the core asked for, with
``bisect`` where SQLite uses its CASE trees (core.overview_reads says what a bucket is).
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from collections.abc import Sequence

from ltm_desktop.core.records import AuditEvent, Memory


class OverviewScans:
    """Mixed into InMemoryStore, which provides ``_memories`` and ``_events``."""

    def _memories(self, project_id: str | None = None) -> list[Memory]:
        raise NotImplementedError

    def _events(self) -> list[AuditEvent]:
        raise NotImplementedError

    def memory_timeline(
        self,
        project_id: str | None,
        edges: Sequence[float],
        stale_max_importance: int,
        stale_age: float,
    ) -> list[tuple[str, int, int | None, int | None, int]]:
        counts: Counter[tuple[str, int, int | None, int | None]] = Counter()
        for m in self._memories(project_id):
            removed = bisect_right(edges, m.disabled_at or m.updated_at) if m.disabled else None
            touched = max(m.updated_at, m.reviewed_at or 0.0)
            candidate = m.importance <= stale_max_importance and m.use_count == 0
            stale = bisect_right(edges, touched + stale_age) if candidate else None
            counts[m.category.value, bisect_right(edges, m.created_at), removed, stale] += 1
        return [(*key, n) for key, n in counts.items()]

    def use_grid(
        self, project_id: str | None, use_edges: Sequence[int]
    ) -> list[tuple[int, int, int, float | None]]:
        counts: Counter[tuple[int, int]] = Counter()
        last: dict[tuple[int, int], float | None] = {}
        for m in self._memories(project_id):
            if m.disabled:
                continue
            key = (m.importance, bisect_right(use_edges, m.use_count))
            counts[key] += 1
            used = [t for t in (last.get(key), m.last_used_at) if t is not None]
            last[key] = max(used) if used else None
        return [(*key, n, last[key]) for key, n in counts.items()]

    def event_counts(
        self, project_id: str | None, edges: Sequence[float], removals: Sequence[str]
    ) -> list[tuple[str, int, bool, int]]:
        counts: Counter[tuple[str, int, bool]] = Counter()
        for e in self._events():
            if (project_id is None or e.project_id == project_id) and edges and e.at >= edges[0]:
                counts[e.actor, bisect_right(edges, e.at), e.action.value in removals] += 1
        return [(*key, n) for key, n in counts.items()]

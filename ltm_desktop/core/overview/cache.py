"""The last Overview of each scope, kept while nothing it counts can have changed."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from datetime import date, tzinfo

from ltm_desktop.core.overview.figures import Overview, OverviewSource, local_day, overview

Compute = Callable[[OverviewSource, "str | None", float, "tzinfo | None", int], Overview]


class OverviewCache:
    """Overviews keyed by scope, the audit history's head (``last_event_seq``) and the local
    day: a repaint or a tab switch reads the head (one indexed lookup) and gets the kept
    one; a change anywhere moves the head, and a new day moves the windows. Uses are not
    audit events: their counts wait for the next change or day. Safe from any thread."""

    def __init__(self, compute: Compute = overview, scopes: int = 32) -> None:
        self._compute = compute
        self._scopes = scopes
        self._kept: OrderedDict[str | None, tuple[tuple[int, date], Overview]] = OrderedDict()
        self._lock = threading.Lock()
        self.computed = 0  # how many times it had to compute (tests, benchmarks)

    def get(
        self, source: OverviewSource, scope: str | None, now: float, tz: tzinfo | None = None
    ) -> Overview:
        head = source.store.last_event_seq()
        key = (head, local_day(now, tz))
        with self._lock:
            kept = self._kept.get(scope)
            if kept is not None and kept[0] == key:
                self._kept.move_to_end(scope)
                return kept[1]
        found = self._compute(source, scope, now, tz, head)
        with self._lock:
            self.computed += 1
            self._kept[scope] = (key, found)
            self._kept.move_to_end(scope)
            while len(self._kept) > self._scopes:
                self._kept.popitem(last=False)
        return found

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()

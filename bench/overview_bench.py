"""The Overview at 100,000 memories (``gui_bench.py --only overview``): the core's computation
cold (each store query apart, and every scope together), a cache hit, and in the window the
time from Ctrl+7 to the charts painted, the longest UI-thread pass meanwhile, a full repaint
and hovering across a chart."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

from bench.ui_passes import STALLS, longest, one_pass, row, wait
from ltm_desktop.core.overview.cache import OverviewCache
from ltm_desktop.core.overview.figures import REMOVALS, USE_EDGES, overview
from ltm_desktop.core.records import SECONDS_PER_DAY
from ltm_desktop.core.service import MemoryService

RUNS = 5


def timed(fn: Callable[[], object], runs: int = RUNS) -> tuple[float, float]:
    """(best, median) in ms."""
    took = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        took.append((time.perf_counter() - start) * 1000)
    return min(took), statistics.median(took)


def computation(service: MemoryService, project: str) -> None:
    now, store, settings = service.now(), service.store, service.settings
    found = overview(service, project, now)
    weeks = [*found.memories.weeks, now]
    days = [*found.writes.days, now]
    print(f"\nOverview computation ({sum(found.memories.counts[-1]):,} memories in the scope)")
    parts: dict[str, Callable[[], object]] = {
        "memory timeline (one scan)": lambda: store.memory_timeline(
            project, weeks, settings.stale_max_importance, settings.stale_age_days * SECONDS_PER_DAY
        ),
        "uses x importance (one scan)": lambda: store.use_grid(project, USE_EDGES),
        "events per day (audit window)": lambda: store.event_counts(project, days, REMOVALS),
        "MEMORY.md budget (precis)": lambda: service.precis(project),
    }
    for label, fn in parts.items():
        best, median = timed(fn)
        print(f"  {label:<40} {best:>9.1f} ms best, {median:.1f} ms median")
    best, median = timed(lambda: overview(service, project, service.now()))
    row("overview of the scope, cold", median, best, "ms", "target < 200 ms (baseline: best)")
    best, median = timed(lambda: overview(service, None, service.now()))
    row("overview of every scope, cold", median, best, "ms", "target < 200 ms (baseline: best)")
    cache = OverviewCache()
    cache.get(service, project, service.now())
    best, median = timed(lambda: cache.get(service, project, service.now()), runs=20)
    print(f"  {'a cache hit (reads the head)':<40} {best:>9.2f} ms best, {median:.2f} ms median")


def in_the_window(app: Any, window: Any) -> None:
    from PySide6.QtCore import QPoint, QPointF, Qt
    from PySide6.QtGui import QMouseEvent
    from PySide6.QtWidgets import QApplication

    panel = window.overview
    print("\nOverview tab")
    STALLS.clear()
    start = time.perf_counter()
    panel.go_action.trigger()
    wait(app, lambda: panel.shown is not None and window.is_idle())
    for _ in range(5):
        one_pass(app)
    row("Ctrl+7 -> charts painted", (time.perf_counter() - start) * 1000, 0.0, "ms", "")
    longest("while it computes and paints")
    best, median = timed(lambda: panel.grab())
    print(
        f"  {'a full repaint of the tab (grab)':<40} {best:>9.1f} ms best, {median:.1f} ms median"
    )
    STALLS.clear()
    chart = panel.writes
    for x in range(0, chart.width(), 4):
        point = QPointF(x, chart.height() / 2)
        move = QMouseEvent(
            QMouseEvent.Type.MouseMove,
            point,
            chart.mapToGlobal(QPoint(x, chart.height() // 2)).toPointF(),
            Qt.MouseButton.NoButton,
            Qt.MouseButton.NoButton,
            Qt.KeyboardModifier.NoModifier,
        )
        QApplication.sendEvent(chart, move)
        one_pass(app)
    longest("hovering across a chart")
    computed = panel.cache.computed
    window.center.setCurrentIndex(0)
    window.center.setCurrentWidget(panel)
    wait(app, window.is_idle)
    print(f"  {'recomputed on a tab switch':<40} {panel.cache.computed - computed:>9} times")

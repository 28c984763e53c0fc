"""The UI thread's passes, as the GUI benchmarks measure them: each event-loop pass timed
(wall and UI-thread CPU), the longest kept, and one figure printed against its baseline.
Shared by ``gui_bench`` and ``overview_bench``."""

from __future__ import annotations

import time
from collections.abc import Callable


def row(label: str, ours: float, base: float, unit: str, target: str = "") -> None:
    ratio = ours / base if base else float("nan")
    print(
        f"  {label:<40} {ours:>9.1f} {unit:<3} baseline {base:>9.1f} {unit:<3} x{ratio:>6.2f}  {target}"
    )


class Passes:
    """The longest event-loop pass (ms) in wall and UI-thread CPU time, and how many; the
    passes longer than ``SLOW_MS`` (wall), what they add up to, and the UI thread's CPU time.

    Kept as running figures, not a list: millions of passes stored as tuples took
    hundreds of MB and slowed the garbage collector (and so the GUI being measured)."""

    SLOW_MS = 40.0  # a pause a person notices (typing, scrolling)

    def __init__(self) -> None:
        self.clear()

    def clear(self) -> None:
        self.wall = self.cpu = 0.0
        self.count = 0
        self.slow = 0
        self.slow_wall = self.total_cpu = 0.0

    def add(self, wall: float, cpu: float) -> None:
        self.wall, self.cpu = max(self.wall, wall), max(self.cpu, cpu)
        self.count += 1
        self.total_cpu += cpu
        if wall > self.SLOW_MS:
            self.slow += 1
            self.slow_wall += wall


STALLS = Passes()


def one_pass(app: object) -> None:
    start, cpu = time.perf_counter(), time.thread_time()
    app.processEvents()  # type: ignore[attr-defined]
    STALLS.add((time.perf_counter() - start) * 1000, (time.thread_time() - cpu) * 1000)


def wait(app: object, done: Callable[[], bool], timeout: float = 120.0) -> None:
    deadline = time.perf_counter() + timeout
    while not done():
        one_pass(app)
        if time.perf_counter() > deadline:
            raise TimeoutError("the GUI did not settle")


def run_for(app: object, seconds: float) -> None:
    """Keep the event loop turning (a person between two keystrokes)."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        one_pass(app)
        time.sleep(0.002)  # idle between events, as the event loop is when nothing happens


def longest(label: str) -> tuple[float, float]:
    """Print and return the longest pass since STALLS was cleared (wall, CPU)."""
    wall, cpu = STALLS.wall, STALLS.cpu
    verdict = "  target < 50 ms" if cpu < 50 else "  target < 50 ms: MISS"
    print(
        f"  {'longest UI-thread pass ' + label:<40} {wall:>9.1f} ms wall, {cpu:.1f} ms CPU "
        f"(of {STALLS.count:,} passes){verdict}"
    )
    return wall, cpu

"""How the suite is spread over pytest-xdist's workers (``-n auto`` in pyproject.toml).

The work goes out in units of a few consecutive tests of one file, and each worker that
needs more work is given, where there is any, a unit from a folder no other worker is in
at that moment: the tests of one folder tend to wait alike (the HTTP server's timeouts,
the live window's refreshes, the agent CLIs' turns) or to load the processor alike (the
hooks' and the MCP server's processes), and workers all waiting at once leave the
processor idle. One end-to-end agent's tests are one unit: they share the agent's real
turn (a module-scoped fixture of about ten seconds), which then runs once, not once on
each worker that got one of them. (``--dist loadgroup`` would say that with marks, but
pytest 9.2 ignores its groups: pytest-xdist issue #1386.)
"""

from __future__ import annotations

import os
from collections import Counter
from typing import Any

from xdist.scheduler import LoadScopeScheduling
from xdist.workermanage import WorkerController

UNIT = 8  # tests of one file sent to a worker at a time


def workers() -> int:
    """As many as there are cores. One more let another worker run while one waited, but
    the hooks' subprocesses then met a busier processor than an agent gives them, and a
    SessionEnd hook (1 s to answer) failed open in CI."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return cores


def unit_of(nodeid: str, index: int) -> str:
    """The unit of the ``index``-th test of its file."""
    path, _, name = nodeid.partition("::")
    if path.startswith("tests/e2e/") and name.endswith("]"):
        return "tests/e2e/[" + name.rpartition("[")[2]  # e.g. tests/e2e/[codex]
    return f"{path}#{index // UNIT}"


def folder_of(unit: str) -> str:
    return unit.rpartition("/")[0]


class Scheduler(LoadScopeScheduling):
    """pytest-xdist's scheduling of work units ("scopes"), with the units above."""

    def __init__(self, config: Any, log: Any = None) -> None:
        super().__init__(config, log)
        # The units in the order of the tests, not the biggest first: that put the files of
        # one test (a stress test, a big table) last, where one of them alone is the tail.
        config.option.loadscopereorder = False
        self._units: dict[str, str] = {}

    def _split_scope(self, nodeid: str) -> str:
        if not self._units:
            collection = next(iter(self.registered_collections.values()))
            seen: Counter[str] = Counter()
            for test in collection:
                path = test.partition("::")[0]
                self._units[test] = unit_of(test, seen[path])
                seen[path] += 1
        return self._units[nodeid]

    def _assign_work_unit(self, node: WorkerController) -> None:
        busy = {
            folder_of(unit)
            for other, work in self.assigned_work.items()
            if other is not node
            for unit, done in work.items()
            if not all(done.values())
        }
        for unit in self.workqueue:
            if folder_of(unit) not in busy:
                self.workqueue.move_to_end(unit, last=False)  # the next one handed out
                break
        super()._assign_work_unit(node)

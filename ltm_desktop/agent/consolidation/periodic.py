"""The periodic consolidation: every ``[consolidate] interval_hours`` the process serving
the data dir (the app, ``serve``) consolidates each scope, one after the other, on one
background thread. Off by default (0). The first run comes one interval after the start,
not during it.

It fails open: a model that is down or answers badly is logged and tried again next
time (nothing is written by a failed run), and closing the service stops the thread
(a run in progress is abandoned after a short grace; its merges are written in one
transaction or not at all).
"""

from __future__ import annotations

import logging
import threading

from ltm_desktop.agent.consolidation.running import consolidator_for
from ltm_desktop.core.consolidation.consolidator import Report
from ltm_desktop.core.errors import LtmError
from ltm_desktop.core.seams import Embedder
from ltm_desktop.core.service import MemoryService

log = logging.getLogger(__name__)
CLOSE_GRACE_S = 5.0
MIN_MEMORIES = 2  # a scope with fewer has nothing to merge


class PeriodicConsolidation:
    """``core.seams.BackgroundTask``: consolidates every scope every ``interval_s``."""

    def __init__(self, service: MemoryService, embedder: Embedder, interval_s: float) -> None:
        self._service = service
        self._embedder = embedder
        self._interval = interval_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name="ltm-consolidate", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(CLOSE_GRACE_S)
            if self._thread.is_alive():
                log.warning("a consolidation still waiting on its model was abandoned")
            self._thread = None

    def _loop(self) -> None:
        while not self._stop.wait(self._interval):
            self.run_once()

    def run_once(self) -> list[Report]:
        """Consolidate each scope with memories now; what fails is logged, not raised."""
        try:
            consolidator = consolidator_for(self._service, self._embedder)
        except LtmError as exc:
            log.warning("periodic consolidation skipped: %s", exc)
            return []
        reports: list[Report] = []
        for project, count in self._service.projects():
            if self._stop.is_set():
                break
            if count < MIN_MEMORIES:
                continue
            try:
                report = consolidator.run(project.project_id)
            except LtmError as exc:  # ConsolidationFailed and store errors: next time
                log.warning("consolidation of %s failed: %s", project.project_id, exc)
                continue
            except Exception:  # a bug: logged, and the thread keeps its schedule
                log.exception("consolidation of %s failed unexpectedly", project.project_id)
                continue
            if report.groups:
                log.info("consolidation of %s: %s", project.project_id, report.summary())
            reports.append(report)
        return reports

"""Run data work off the UI thread and deliver the outcome back on it.

Workers are plain Python threads (a ThreadPoolExecutor) rather than a QThreadPool:
code running in them may log or use ``threading`` freely, and shutting the runner
down joins them, so nothing outlives the window (tests check for leaked threads).
Each result comes back through a queued signal; a result for a request that a
newer request with the same key has superseded is dropped, so a slow answer never
overwrites a newer view.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal

log = logging.getLogger(__name__)

ErrorHandler = Callable[[BaseException], None]


@dataclass(slots=True)
class _Job:
    request: int
    key: str | None
    fn: Callable[[], Any]
    on_done: Callable[[Any], None] | None
    on_error: ErrorHandler | None
    result: Any = None
    error: BaseException | None = None


class TaskRunner(QObject):
    """A small worker pool whose results are delivered on the UI thread.

    Signals:
        busy_changed(bool): work started (True) or every request has come back (False).
    """

    busy_changed = Signal(bool)
    _delivered = Signal(object)

    def __init__(self, workers: int = 4, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ltm-gui")
        self._latest: dict[str, int] = {}
        self._next_request = 0
        self._pending = 0
        self._closed = False
        self.error_handler: ErrorHandler = _log_error
        self._delivered.connect(self.on_delivered, Qt.ConnectionType.QueuedConnection)

    def run(
        self,
        fn: Callable[[], Any],
        on_done: Callable[[Any], None] | None = None,
        on_error: ErrorHandler | None = None,
        *,
        key: str | None = None,
    ) -> int:
        """Call ``fn()`` on a worker; ``on_done(result)`` or ``on_error(exc)`` runs on the UI thread.

        Args:
            key: requests sharing a key supersede each other: only the latest one's
                outcome is delivered.

        Returns:
            the request id (0 once the runner is shut down).
        """
        if self._closed:
            return 0
        self._next_request += 1
        request = self._next_request
        if key is not None:
            self._latest[key] = request
        job = _Job(request, key, fn, on_done, on_error)
        self._pending += 1
        if self._pending == 1:
            self.busy_changed.emit(True)
        self._executor.submit(self._work, job)
        return request

    def cancel(self, key: str) -> None:
        """Drop the outcome of every request made so far with ``key``."""
        self._next_request += 1
        self._latest[key] = self._next_request

    def is_idle(self) -> bool:
        return self._pending == 0

    def shutdown(self) -> None:
        """Stop accepting work and wait for the workers to finish (joins their threads)."""
        self._closed = True
        self._executor.shutdown(wait=True, cancel_futures=True)

    def _work(self, job: _Job) -> None:
        """Worker side: never raises, always reports back."""
        try:
            job.result = job.fn()
        except BaseException as exc:  # every outcome goes back to the UI
            job.error = exc
        self._delivered.emit(job)

    def on_delivered(self, job: _Job) -> None:
        self._pending -= 1
        try:
            if self._closed or (job.key is not None and self._latest.get(job.key) != job.request):
                return
            if job.error is not None:
                (job.on_error or self.error_handler)(job.error)
            elif job.on_done is not None:
                job.on_done(job.result)
        except Exception:
            # A bug in a callback: hand it to the installed hook (a dialog in the app,
            # a test failure under pytest-qt) instead of losing it in the event loop.
            sys.excepthook(*sys.exc_info())
        finally:
            if self._pending == 0:
                self.busy_changed.emit(False)


def _log_error(exc: BaseException) -> None:
    log.error("background task failed", exc_info=exc)

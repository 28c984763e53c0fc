"""Extractions in the background of the process that serves the data dir (the app or
``serve``): ``submit`` queues a request and returns at once; one thread runs them in
turn (a local model serves one request at a time anyway).

The composition root installs a worker as ``MemoryService.extraction``; closing the
service closes it. A run still waiting on its model when the process ends is abandoned
after a short grace (the thread is a daemon): nothing of it was written.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable

from ltm_desktop.agent.extractor.generator import Generator
from ltm_desktop.agent.extractor.runner import run_extraction
from ltm_desktop.core.errors import LtmError
from ltm_desktop.core.inbox.proposals import ExtractionRequest
from ltm_desktop.core.seams import NO_EXTRACTOR, ExtractorOff
from ltm_desktop.core.service import MemoryService

log = logging.getLogger(__name__)
MAX_WAITING = 8
CLOSE_GRACE_S = 5.0


class ExtractionBusy(LtmError):
    """Too many extractions are waiting already."""


class ExtractionWorker:
    """``core.seams.ExtractionQueue`` on one background thread."""

    def __init__(
        self,
        service: MemoryService,
        *,
        generator: Callable[[], Generator] | None = None,
        max_waiting: int = MAX_WAITING,
    ) -> None:
        """``generator``: makes the generator of each run (tests); default: the config's."""
        self._service = service
        self._generator = generator
        self._queue: queue.Queue[ExtractionRequest | None] = queue.Queue(max_waiting)
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._closed = False
        self._idle = threading.Event()
        self._idle.set()
        self._pending = 0

    def submit(self, request: ExtractionRequest) -> None:
        if not self._service.settings.extractor_configured and self._generator is None:
            raise ExtractorOff(NO_EXTRACTOR)
        with self._lock:
            if self._closed:
                raise LtmError("extraction is shutting down")
            try:
                self._queue.put_nowait(request)
            except queue.Full:
                raise ExtractionBusy(
                    f"{self._queue.maxsize} extractions are waiting already; try again later"
                ) from None
            self._pending += 1
            self._idle.clear()
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._loop, name="ltm-extractor", daemon=True
                )
                self._thread.start()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Until every submitted request has run (tests, and the command's --wait)."""
        return self._idle.wait(timeout)

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            thread = self._thread
        if thread is None:
            return
        self._drop_waiting()
        self._queue.put(None)
        thread.join(CLOSE_GRACE_S)
        if thread.is_alive():
            log.warning("an extraction still waiting on its model was abandoned at shutdown")

    def _drop_waiting(self) -> None:
        while True:
            try:
                dropped = self._queue.get_nowait()
            except queue.Empty:
                return
            if dropped is not None:
                log.info("extraction %s dropped at shutdown", dropped.run_id)
                self._done()

    def _done(self) -> None:
        with self._lock:
            self._pending -= 1
            if self._pending == 0:
                self._idle.set()

    def _loop(self) -> None:
        while True:
            request = self._queue.get()
            if request is None:
                return
            try:
                generator = self._generator() if self._generator is not None else None
                run = run_extraction(self._service, request, generator)
                log.info("%s", run.summary())
            except Exception:  # fail open: the thread keeps serving later requests
                log.exception("extraction %s could not be recorded", request.run_id)
            finally:
                self._done()

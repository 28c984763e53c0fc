"""Agent uses of memories, counted in memory and written in batches.

Every agent search counts a use of each hit. Writing that at once costs a
transaction per search, serialized behind the single writer; batching them
every quarter second takes the write off the search path. Reads made through
the service add the pending counts, so callers never see a stale counter (nor,
while a batch is being written, one that goes back: a memory read before that
write committed gets the batch added, one read after has it already, told apart
by its ``last_used_at``); another process sees them after the next flush. A crash loses at most the
last quarter second of counts (counters, never content).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from dataclasses import replace

from ltm_desktop.core.ranking import heat
from ltm_desktop.core.records import Memory

log = logging.getLogger(__name__)
FLUSH_SECONDS = 0.25
Uses = dict[str, tuple[int, float]]  # memory id -> (uses, last used at)


class UseCounter:
    def __init__(self, write: Callable[[Uses], None], interval: float = FLUSH_SECONDS) -> None:
        self._write = write
        self._interval = interval
        self._pending: Uses = {}
        self._writing: Uses = {}  # the batch being written: not yet in what readers read
        self._lock = threading.Lock()
        self._flushing = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="ltm-use-counter", daemon=True)
        self._thread.start()

    def add(self, memory_ids: Iterable[str], now: float) -> None:
        with self._lock:
            for memory_id in memory_ids:
                count, _ = self._pending.get(memory_id, (0, now))
                self._pending[memory_id] = (count + 1, now)
        self._wake.set()

    def overlay(self, memory: Memory) -> Memory:
        """``memory`` with the uses not yet written added."""
        with self._lock:
            pending = self._pending.get(memory.id)
            writing = self._writing.get(memory.id)
        if writing is not None and (memory.last_used_at or 0.0) < writing[1]:
            count, at = writing  # read before that batch committed: add it too
            if pending is not None:
                count, at = count + pending[0], max(at, pending[1])
            pending = (count, at)
        if pending is None:
            return memory
        count, at = pending
        return replace(
            memory,
            use_count=memory.use_count + count,
            last_used_at=at,
            use_heat=memory.use_heat + heat(count, at),
        )

    def pending_ids(self) -> set[str]:
        with self._lock:
            return set(self._pending)

    def flush(self) -> None:
        """Write what is pending (one flush at a time; reads are not held up by it)."""
        with self._flushing:
            with self._lock:
                batch, self._pending = self._pending, {}
                self._writing = batch
            if not batch:
                return
            try:
                self._write(batch)
            except Exception:
                log.exception(
                    "could not write %d use counts; keeping them for the next try", len(batch)
                )
                with self._lock:
                    self._writing = {}
                    for memory_id, (count, at) in batch.items():
                        more, later = self._pending.get(memory_id, (0, at))
                        self._pending[memory_id] = (count + more, max(at, later))
                raise
            with self._lock:
                self._writing = {}

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait()
            if self._stop.wait(self._interval):
                break
            self._wake.clear()
            try:
                self.flush()
            except Exception:  # logged in flush; the counts wait for the next round
                pass

    def close(self) -> None:
        """Stop the flusher and write what is pending."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        self.flush()

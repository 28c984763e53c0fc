"""The background backfill: token sets and vectors for memories stored without them.

Memories written before semantic search existed, imported in bulk, written while the
embedder could not run (or by one that does not embed inline, like a remote endpoint),
or stored under another model get theirs here, a batch at a time, each batch one short
transaction. It is woken after every write, and each pass asks the store for whatever
still lacks them (found by index: about a millisecond when nothing does, at any size),
so an edit, an import or a restore is never missed, and it is resumable by nature: what
is done is stored. After the embedder failed it tries again by itself. Progress goes to listeners (the app's status bar)
and to ``MemoryService.index_status`` (``ltm-desktop status``).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from ltm_desktop.core.backend import MemoryStore
from ltm_desktop.core.errors import EmbedderUnavailable, LtmError
from ltm_desktop.core.records import IndexStatus, Memory
from ltm_desktop.core.rules import similarity_tokens
from ltm_desktop.core.seams import Embedder
from ltm_desktop.core.writing import embedding_text

log = logging.getLogger(__name__)
BATCH = 256
RETRY_SECONDS = 60.0  # after the embedder failed, before trying again
COUNT_SECONDS = 10.0  # how long a count of memories with vectors is reused
DEBOUNCE_SECONDS = 0.05
ProgressListener = Callable[[IndexStatus], None]


class Backfill:
    """A worker thread that fills in what ``store.unindexed`` reports."""

    def __init__(
        self,
        store: MemoryStore,
        embedder: Embedder,
        write_lock: threading.RLock,
    ) -> None:
        self._store = store
        self._embedder = embedder
        self._write_lock = write_lock
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._listeners: list[ProgressListener] = []
        self._running = False
        self._done_total: tuple[int, int] | None = None
        self._counted_at = 0.0
        self._last: IndexStatus | None = None

    def subscribe(self, listener: ProgressListener) -> None:
        self._listeners.append(listener)

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="ltm-backfill", daemon=True)
        self._thread.start()
        self._wake.set()

    @property
    def active(self) -> bool:
        """The worker runs: new memories' vectors can be left to it (batched, off the
        writer's path) instead of being made on write."""
        thread = self._thread
        return thread is not None and thread.is_alive() and not self._stop.is_set()

    def wake(self) -> None:
        """Something was written: fill in what lacks shortly (a burst of writes is batched)."""
        self._wake.set()

    def close(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def status(self) -> IndexStatus:
        """Counted at most every COUNT_SECONDS (a count over every memory), or by the backfill."""
        now = time.monotonic()
        if self._done_total is None or now - self._counted_at > COUNT_SECONDS:
            try:
                self._done_total = self._store.index_progress(self._embedder.model)
            except LtmError:  # the store's health says why; health must still answer
                self._done_total = self._done_total or (0, 0)
            self._counted_at = now
        done, total = self._done_total
        return IndexStatus(
            model=self._embedder.model,
            with_vectors=done,
            memories=total,
            running=self._running,
            problem=self._embedder.problem(),
        )

    def run_once(self, after: str = "") -> int:
        """One pass over what lacks its token set or vector, from the id after ``after``
        ("": everything); returns how many memories were brought up to date."""
        model = self._embedder.model
        filled = 0
        while not self._stop.is_set():
            batch = self._store.unindexed(model, after, BATCH)
            if not batch:
                break
            after = batch[-1].id
            filled += self._fill(batch)
            self._done_total = self._store.index_progress(model)
            self._counted_at = time.monotonic()
            self._publish()
        return filled

    def _fill(self, batch: list[Memory]) -> int:
        vectors: list[bytes] | None = None
        if self._embedder.model:
            try:
                vectors = self._embedder.embed([embedding_text(m) for m in batch])
            except EmbedderUnavailable:
                vectors = None  # tokens still; the embedder said why, once
        filled = 0
        with self._write_lock, self._store.write() as txn:
            for index, seen in enumerate(batch):
                try:
                    memory = txn.get_memory(seen.id)
                except LtmError:
                    continue
                if embedding_text(memory) != embedding_text(seen):
                    continue  # edited meanwhile: its writer stored what it needs
                txn.set_tokens(memory.id, similarity_tokens(memory.content))
                if vectors:
                    txn.set_vector(memory.id, self._embedder.model, vectors[index])
                filled += 1
        return filled

    def last_status(self) -> IndexStatus | None:
        """The last progress published (no query: for a UI that polls), None before any."""
        return self._last

    def _publish(self) -> None:
        try:
            status = self.status()
        except LtmError:  # the store is failing; health says so
            return
        self._last = status
        for listener in list(self._listeners):
            try:
                listener(status)
            except Exception:  # a listener's bug must not stop the backfill
                log.exception("backfill progress listener failed")

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait()
            self._wake.clear()
            if self._stop.is_set():
                break
            self._stop.wait(DEBOUNCE_SECONDS)  # let a burst of writes gather into one batch
            self._running = True
            try:
                self.run_once()
            except LtmError as exc:  # the store is failing: report, retry later
                log.warning("backfill of token sets and vectors paused: %s", exc)
                self._stop.wait(RETRY_SECONDS)
                self._wake.set()
            finally:
                self._running = False
                self._publish()
            if self._embedder.problem() is not None and not self._stop.is_set():
                self._stop.wait(RETRY_SECONDS)  # a remote endpoint may come back:
                self._wake.set()  # what it could not embed is tried again

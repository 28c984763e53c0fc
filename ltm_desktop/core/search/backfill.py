"""The background backfill: token sets and vectors for memories stored without them.

Memories written before semantic search existed, imported in bulk, written while the
embedder could not run (or by one that does not embed inline, like a remote endpoint),
or stored under another model get theirs here. It is woken after every write; each pass
walks what still lacks them with a cursor, a batch at a time: each batch is found by
index from the cursor (``store.unindexed``: what is done is never read again, and a pass
with nothing to do is a few index seeks), embedded in one call outside the writer lock,
and stored in transactions of a few milliseconds, so agents' writes go on meanwhile. An
edit, an import or a restore is never missed (a pass starts from the beginning, where
the index finds them wherever they are), and it is resumable by nature: what is done is
stored, so a restart embeds only what is left. After the embedder failed it tries again
by itself. Progress goes to listeners (the app's status bar) and to
``MemoryService.index_status`` (``ltm-desktop status``), counted once per pass.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from ltm_desktop.core.backend import MemoryStore, WriteTxn
from ltm_desktop.core.errors import EmbedderUnavailable, LtmError
from ltm_desktop.core.records import IndexStatus, Memory
from ltm_desktop.core.rules import similarity_tokens
from ltm_desktop.core.seams import Embedder
from ltm_desktop.core.writing import embedding_text

log = logging.getLogger(__name__)
BATCH = 256  # memories read and embedded together
WRITE_ROWS = 64  # vectors stored per transaction: the writer lock is held a few ms
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
        """One pass over what lacks its token set or vector, from the memory after ``after``
        ("": everything); returns how many memories got their vector (with no model: their
        token set).

        Token sets come first (no embedding needed), then vectors: each memory is given
        only what it lacks. The cursor moves on with each batch and each batch is found
        by index from it, so the pass reads what is done never again and costs the same
        per memory at any size; a pass is also where a restart resumes, since what is
        done is stored and what is left is found by index."""
        model = self._embedder.model
        tokens = self._pass("", after, self._store_tokens)
        if not model:
            return tokens
        return self._pass(model, after, self._store_vectors)

    def _pass(self, model: str, after: str, store: Callable[[list[Memory]], int | None]) -> int:
        """Batches of what lacks (``store.unindexed(model, ...)``) from ``after``, each
        handed to ``store`` (None: stop); progress published per batch, counted once."""
        filled = 0
        while not self._stop.is_set():
            batch = self._store.unindexed(model, after, BATCH)
            if not batch:
                break
            after = batch[-1].id
            stored = store(batch)
            if stored is None:  # the embedder failed: listeners are told why
                self._publish()
                break
            filled += stored
            self._advance(stored if model else 0)
        if filled:  # counted once per pass, not per batch: a count reads every memory
            self._recount()
            self._publish()
        return filled

    def _store_tokens(self, batch: list[Memory]) -> int:
        """Token sets of memories stored without one, in one short transaction."""
        filled = 0
        with self._write_lock, self._store.write() as txn:
            for seen in batch:
                memory = self._unchanged(txn, seen, lambda m: m.content)
                if memory is not None:
                    txn.set_tokens(memory.id, similarity_tokens(memory.content))
                    filled += 1
        return filled

    def _store_vectors(self, batch: list[Memory]) -> int | None:
        """The batch embedded in one call (outside the lock), then stored in transactions
        of WRITE_ROWS each, so the writer lock is never held for long; None when the
        embedder failed (it said why, once; the worker tries again later)."""
        model = self._embedder.model
        try:
            vectors = self._embedder.embed([embedding_text(m) for m in batch])
        except EmbedderUnavailable:
            return None
        filled = 0
        for start in range(0, len(batch), WRITE_ROWS):
            with self._write_lock, self._store.write() as txn:
                for seen, vector in zip(
                    batch[start : start + WRITE_ROWS],
                    vectors[start : start + WRITE_ROWS],
                    strict=True,
                ):
                    if self._unchanged(txn, seen, embedding_text) is not None:
                        txn.set_vector(seen.id, model, vector)
                        filled += 1
        return filled

    @staticmethod
    def _unchanged(txn: WriteTxn, seen: Memory, text: Callable[[Memory], str]) -> Memory | None:
        """The memory as stored now, unless it is gone or its ``text`` changed since it was
        read (its writer stored what that text needs)."""
        try:
            memory = txn.get_memory(seen.id)
        except LtmError:
            return None
        return memory if text(memory) == text(seen) else None

    def _advance(self, stored: int) -> None:
        """``stored`` more memories have their vector: the progress without a count."""
        if self._done_total is None:
            self._recount()
        else:
            done, total = self._done_total
            self._done_total = (min(done + stored, total), total)
        self._publish()

    def _recount(self) -> None:
        self._done_total = self._store.index_progress(self._embedder.model)
        self._counted_at = time.monotonic()

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

"""Moves WAL checkpoints (and their fsync) off the write path, and keeps the WAL bounded.

SQLite's automatic checkpoint runs inside whichever commit crosses the WAL size
threshold, so one write in a few hundred pays for copying pages back into the
database file and syncing it. A background thread doing PASSIVE checkpoints
keeps every commit short; PASSIVE never blocks readers or the writer.

A checkpoint that fails (disk full, I/O error) is logged, reported by ``problem()``
and retried after a pause that doubles up to MAX_BACKOFF_SECONDS; the thread never
gives up, because without it the WAL grows without bound. The WAL stays bounded
three ways: a write that finds it past TRIGGER_BYTES wakes the thread at once;
every connection sets ``journal_size_limit``, so the file shrinks back when SQLite
restarts it; and a WAL past LIMIT_BYTES (after failures, or behind a reader that
held on to it) gets a TRUNCATE checkpoint, which empties the file.

A checkpoint that copied the whole WAL back has synced it and the database, so the
commits before it are durable whatever ``synchronous`` says: ``durable`` hears of it
(the audit chain's anchor, ``chain_anchor``, is only moved to such a head). Other
processes' commits count as writes to checkpoint too (``PRAGMA data_version`` on the
thread's connection): a hook or ``ltm-desktop mcp`` writing while the app holds the
database leaves its WAL frames here, and its events are anchored by the app's next
checkpoint.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ltm_desktop.store.connection import BUSY_TIMEOUT_MS, SYNCHRONOUS, connect

# Called on the checkpoint's connection before it starts: what to call if it completes.
Durable = Callable[[sqlite3.Connection], Callable[[], None]]

log = logging.getLogger(__name__)
# Module attributes, read when a Checkpointer starts, so that tests can shorten them.
INTERVAL_SECONDS = 1.0
MAX_BACKOFF_SECONDS = 30.0
# Above JOURNAL_SIZE_LIMIT, which the file shrinks to when SQLite restarts it: a WAL file
# this large has really had this much written since the last complete checkpoint.
TRIGGER_BYTES = 8 * 1024 * 1024
MIN_GAP_SECONDS = 0.05  # between checkpoints woken by TRIGGER_BYTES (a reader may pin the WAL)
LIMIT_BYTES = 64 * 1024 * 1024
TRUNCATE_BUSY_MS = 200  # how long a TRUNCATE checkpoint may hold up writers


@dataclass(frozen=True, slots=True)
class Failure:
    count: int
    since: float
    last: str


class Checkpointer:
    def __init__(
        self,
        path: Path,
        *,
        synchronous: str = SYNCHRONOUS,
        still_ours: Callable[[], bool] = lambda: True,
        durable: Durable | None = None,
    ) -> None:
        """``still_ours``: whether ``path`` still holds the database the store opened; when
        it does not, no new connection is made (it would open someone else's file).
        ``durable``: called before each checkpoint; what it returns is called once that
        checkpoint has copied the whole WAL back (everything committed before is durable)."""
        self._path = path
        self._wal = Path(f"{path}-wal")
        self._synchronous = synchronous
        self._still_ours = still_ours
        self._durable = durable
        self._interval = INTERVAL_SECONDS
        self._max_backoff = MAX_BACKOFF_SECONDS
        self._trigger = TRIGGER_BYTES
        self._min_gap = MIN_GAP_SECONDS
        self._last_tick = 0.0
        self._limit = LIMIT_BYTES
        self._dirty = threading.Event()
        self._wake = threading.Event()
        self._stopping = False
        self._conn: sqlite3.Connection | None = None
        self._data_version: int | None = None  # of ``_conn``: moves on others' commits
        self._failure: Failure | None = None
        self._thread = threading.Thread(target=self._run, name="ltm-checkpointer", daemon=True)
        self._thread.start()

    def note_write(self, wal_bytes: int = 0) -> None:
        """A commit happened; ``wal_bytes`` is the WAL's size as last seen."""
        self._dirty.set()
        if (
            wal_bytes >= self._trigger
            and self._failure is None  # failing: keep backing off
            and time.monotonic() - self._last_tick >= self._min_gap
        ):
            self._wake.set()

    def problem(self) -> str | None:
        """Why checkpoints are not happening, while they are not."""
        failure = self._failure
        if failure is None:
            return None
        since = time.strftime("%H:%M:%S", time.localtime(failure.since))
        return (
            f"background checkpoints of {self._path} have failed {failure.count} time(s) "
            f"since {since} ({failure.last}); the WAL has grown to {self.wal_bytes():,} bytes "
            "and is retried with pauses of up to "
            f"{self._max_backoff:g} s"
        )

    def wal_bytes(self) -> int:
        try:
            return os.stat(self._wal).st_size
        except OSError:
            return 0

    def alive(self) -> bool:
        return self._thread.is_alive()

    def stop(self) -> None:
        self._stopping = True
        self._wake.set()
        self._thread.join()

    # -- the thread -------------------------------------------------------

    def _run(self) -> None:
        delay = self._interval
        try:
            while True:
                self._wake.wait(delay)
                self._wake.clear()
                if self._stopping:
                    return
                try:
                    self._tick()
                except Exception as exc:  # noqa: BLE001 - whatever it is, keep going
                    delay = self._failed(exc)
                else:
                    if self._failure is not None:
                        log.warning(
                            "background checkpoints of %s work again after %d failure(s)",
                            self._path,
                            self._failure.count,
                        )
                        self._failure = None
                    delay = self._interval
        finally:
            self._finish()

    def _tick(self) -> None:
        self._last_tick = time.monotonic()
        if not self._still_ours():
            self._close()  # the store refuses writes; nothing here is ours to checkpoint
            return
        oversized = self.wal_bytes() > self._limit
        if not (oversized or self._dirty.is_set() or self._others_committed()):
            return
        self._dirty.clear()
        try:
            if self._conn is None:
                self._conn = connect(self._path, synchronous=self._synchronous)
                self._others_committed()  # the version to compare with from now on
            then = self._durable(self._conn) if self._durable is not None else None
            conn = self._conn
            complete = self._truncate(conn) if oversized else passive_checkpoint(conn)
        except BaseException:
            self._dirty.set()  # still to be done
            raise
        if complete and then is not None:
            then()

    def _others_committed(self) -> bool:
        """Whether another connection (this process's writer, or another process) has
        committed since the last look: one PRAGMA a second, on the open connection."""
        if self._conn is None:
            return False
        version = int(self._conn.execute("PRAGMA data_version").fetchone()[0])
        changed = self._data_version is not None and version != self._data_version
        self._data_version = version
        return changed

    def _truncate(self, conn: sqlite3.Connection) -> bool:
        """Copy everything back and empty the WAL file; waits for readers only briefly.
        Whether the whole WAL was copied back."""
        conn.execute(f"PRAGMA busy_timeout = {TRUNCATE_BUSY_MS}")
        try:
            result = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        finally:
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if result[0]:  # a reader or the writer was in the way: copy what can be, try again later
            self._dirty.set()
            return passive_checkpoint(conn)
        return True

    def _failed(self, exc: Exception) -> float:
        """Record and log a failure; the pause before the next attempt."""
        previous = self._failure
        count = 1 if previous is None else previous.count + 1
        since = time.time() if previous is None else previous.since
        self._failure = Failure(count, since, str(exc) or type(exc).__name__)
        self._close()  # a fresh connection next time, whatever state this one is in
        delay = min(self._max_backoff, self._interval * 2.0 ** min(count, 16))
        if isinstance(exc, sqlite3.Error | OSError):
            log.warning(
                "background checkpoint of %s failed (%s); retrying in %g s",
                self._path,
                exc,
                delay,
            )
        else:
            log.exception("background checkpoint of %s failed; retrying in %g s", self._path, delay)
        return delay

    def _close(self) -> None:
        if self._conn is not None:
            try:
                self._conn.close()
            except sqlite3.Error:
                pass
            self._conn = None
            self._data_version = None

    def _finish(self) -> None:
        """A last checkpoint at stop, on the connection there is (never a new one)."""
        if self._conn is not None and self._still_ours():
            try:
                then = self._durable(self._conn) if self._durable is not None else None
                complete = passive_checkpoint(self._conn)
                if complete and then is not None:
                    then()
            except sqlite3.Error:
                pass  # the store's close checkpoints and anchors once more
        self._close()


def _complete(result: sqlite3.Cursor) -> bool:
    """Whether a checkpoint's (busy, WAL frames, frames copied) say it copied every frame."""
    busy, frames, copied = result.fetchone()
    return not busy and frames >= 0 and frames == copied


def passive_checkpoint(conn: sqlite3.Connection) -> bool:
    """A PASSIVE checkpoint (it waits for no one); whether it copied the whole WAL back."""
    return _complete(conn.execute("PRAGMA wal_checkpoint(PASSIVE)"))

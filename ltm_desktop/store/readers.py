"""Reading connections: one per thread, so reads run side by side under WAL.

A thread pool retires idle threads and starts new ones (anyio's after 10 s idle), so
a connection lives as long as its thread: opening one closes those of dead threads.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from ltm_desktop.core.errors import StorageError
from ltm_desktop.store.connection import connect, describe_error
from ltm_desktop.store.file_guard import FileGuard

T = TypeVar("T")
SCHEMA_RACE_RETRIES = 10
SCHEMA_RACE_PAUSE = 0.001  # doubled at each retry, at most 64 ms: about 0.3 s in all
LOOK_SECONDS = 0.1  # how stale a reader's knowledge that the files are still ours may be


def is_schema_race(exc: sqlite3.OperationalError) -> bool:
    """Errors SQLite reports when a table is created while a reader prepares a statement;
    the same read succeeds when repeated (seen with 3.40 and FTS5)."""
    text = str(exc)
    return "vtable constructor failed" in text or "schema has changed" in text


class Readers:
    """Each thread's read-only connection to one database, and their closing."""

    def __init__(self, path: Path, guard: FileGuard) -> None:
        self._path = path
        self._guard = guard
        self._lock = threading.Lock()
        self._open: list[tuple[threading.Thread, sqlite3.Connection]] = []
        self._local = threading.local()
        self._closed = False
        self._looked_at = -LOOK_SECONDS

    def connection(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            with self._lock:
                if self._closed:
                    raise StorageError("the store is closed")
                self._guard.check()  # never open whatever file now has our path
                self._close_orphans()
                conn = connect(self._path, readonly=True)
                self._open.append((threading.current_thread(), conn))
            self._local.conn = conn
        return conn

    def _close_orphans(self) -> None:
        """Close the connections of threads that have died (no one else can use them)."""
        living = []
        for thread, conn in self._open:
            if thread.is_alive():
                living.append((thread, conn))
            else:
                conn.close()
        self._open = living

    def read(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``work`` on this thread's connection, retrying the rare read that races a
        schema change (another connection creating a scope's search table)."""
        if self._files_lost():
            raise self._guard.error()
        for attempt in range(SCHEMA_RACE_RETRIES + 1):
            try:
                return work(self.connection())
            except sqlite3.OperationalError as exc:
                if attempt < SCHEMA_RACE_RETRIES and is_schema_race(exc):
                    # A burst of new scopes keeps the schema moving; a short pause lets the
                    # writer's statement finish, where an immediate retry can race again.
                    time.sleep(min(SCHEMA_RACE_PAUSE * 2**attempt, 0.064))
                    continue
                raise describe_error(exc, self._path) from exc
            except sqlite3.Error as exc:
                raise describe_error(exc, self._path) from exc
        raise AssertionError("unreachable")

    def _files_lost(self) -> bool:
        """Whether the files are no longer the data dir's: known from a write, health or
        the checkpointer, or looked at (a few stat calls) at most every LOOK_SECONDS, so
        that a process that only reads (an ``mcp`` after a ``restore``) does not answer
        from replaced files, and a burst of reads costs no more than one look."""
        if self._guard.lost is not None:
            return True
        now = time.monotonic()
        if now - self._looked_at < LOOK_SECONDS:
            return False
        self._looked_at = now
        return self._guard.look().lost is not None

    def close(self) -> None:
        with self._lock:
            self._closed = True
            for _, conn in self._open:
                conn.close()
            self._open.clear()

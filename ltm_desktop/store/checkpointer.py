"""Moves WAL checkpoints (and their fsync) off the write path.

SQLite's automatic checkpoint runs inside whichever commit crosses the WAL size
threshold, so one write in a few hundred pays for copying pages back into the
database file and syncing it. A background thread doing PASSIVE checkpoints
keeps every commit short; PASSIVE never blocks readers or the writer.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from pathlib import Path

from ltm_desktop.store.connection import connect

log = logging.getLogger(__name__)
INTERVAL_SECONDS = 1.0


class Checkpointer:
    def __init__(self, path: Path, interval: float = INTERVAL_SECONDS) -> None:
        self._path = path
        self._interval = interval
        self._dirty = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="ltm-checkpointer", daemon=True)
        self._thread.start()

    def note_write(self) -> None:
        self._dirty.set()

    def _run(self) -> None:
        conn: sqlite3.Connection | None = None
        try:
            conn = connect(self._path)
            while not self._stop.wait(self._interval):
                if self._dirty.is_set():
                    self._dirty.clear()
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        except Exception:  # a failed checkpoint only delays copying the WAL back
            log.exception("background checkpoint of %s failed", self._path)
        finally:
            if conn is not None:
                try:
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                except sqlite3.Error:
                    pass
                conn.close()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

"""Opening the outbox's own SQLite files (the queue and the read cache) in one way: made
private before anything is written (what they hold are memories), WAL, and a failure to
open said as a ``StorageError`` naming the file."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from ltm_desktop.core.errors import StorageError

BUSY_TIMEOUT_MS = 5_000


def open_local_file(path: Path, what: str, *, synchronous: str, schema: str) -> sqlite3.Connection:
    """A connection to ``path`` (made mode 0600 if missing) in autocommit, shared between
    threads (its owner serializes with a lock), with ``schema`` applied."""
    if synchronous not in ("FULL", "NORMAL"):
        raise ValueError(f"synchronous must be FULL or NORMAL, not {synchronous!r}")
    try:
        os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
        db = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=5.0)
        try:
            db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            db.execute("PRAGMA journal_mode = WAL")
            db.execute(f"PRAGMA synchronous = {synchronous}")
            db.executescript(schema)
        except sqlite3.Error:
            db.close()
            raise
    except (OSError, sqlite3.Error) as exc:
        raise StorageError(f"cannot open {what} {path}: {exc}") from exc
    return db

"""Opening SQLite files safely: refuse what is not ours, never overwrite it."""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ltm_desktop.core.errors import NotADatabase, StorageError

SQLITE_HEADER = b"SQLite format 3\x00"
BUSY_TIMEOUT_MS = 10_000


def check_is_sqlite_file(path: Path) -> None:
    """Raise NotADatabase unless ``path`` is missing, empty, or starts with the SQLite header."""
    try:
        with path.open("rb") as handle:
            header = handle.read(len(SQLITE_HEADER))
    except FileNotFoundError:
        return
    except IsADirectoryError:
        raise NotADatabase(f"{path} is a directory, not an SQLite database") from None
    except OSError as exc:
        raise StorageError(f"cannot read {path}: {exc.strerror}") from exc
    if header and header != SQLITE_HEADER:
        raise NotADatabase(
            f"{path} is not an SQLite database; it was left untouched. "
            "Move it away or choose another data directory (--data-dir)."
        )


def connect(path: Path, *, readonly: bool = False) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are explicit) with our pragmas."""
    try:
        conn = sqlite3.connect(
            str(path),
            isolation_level=None,
            check_same_thread=False,
            timeout=BUSY_TIMEOUT_MS / 1000,
        )
    except sqlite3.Error as exc:
        raise StorageError(f"cannot open the database {path}: {exc}") from exc
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA foreign_keys = ON")
        if readonly:
            conn.execute("PRAGMA query_only = ON")
        else:
            mode = _enable_wal(conn)
            if str(mode).lower() != "wal":
                raise StorageError(f"cannot switch {path} to WAL mode (got {mode})")
        conn.execute("PRAGMA synchronous = NORMAL")
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise describe_error(exc, path) from exc
    except BaseException:
        conn.close()
        raise
    return conn


def _enable_wal(conn: sqlite3.Connection, patience: float = BUSY_TIMEOUT_MS / 1000) -> str:
    """Switch to WAL. On a brand-new file several processes may try at once, and SQLite
    answers "busy" at once instead of waiting: retry until the deadline."""
    deadline = time.monotonic() + patience
    while True:
        try:
            return str(conn.execute("PRAGMA journal_mode = WAL").fetchone()[0])
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise
            if time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def create_private(path: Path) -> None:
    """Create the database file readable by its owner only (SQLite gives the -wal and
    -shm files the same permissions); an existing file is left as it is."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        pass


def describe_error(exc: sqlite3.Error, path: Path) -> StorageError:
    """Turn an sqlite3 error into a message a person can act on."""
    text = str(exc)
    lowered = text.lower()
    if "not a database" in lowered or "malformed" in lowered or "corrupt" in lowered:
        return NotADatabase(
            f"{path} is corrupt or not an SQLite database ({text}); it was left untouched"
        )
    if "locked" in lowered or "busy" in lowered:
        return StorageError(f"the database {path} is busy (locked by another process); try again")
    if "full" in lowered:
        return StorageError(f"the disk holding {path} is full; free some space and try again")
    if "readonly" in lowered or "read-only" in lowered:
        return StorageError(f"the database {path} is read-only")
    return StorageError(f"database error on {path}: {text}")


@contextmanager
def transaction(conn: sqlite3.Connection, path: Path) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE ... COMMIT, rolled back on any error; sqlite errors become StorageError."""
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.Error as exc:
        raise describe_error(exc, path) from exc
    try:
        yield conn
        conn.execute("COMMIT")
    except BaseException as exc:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        if isinstance(exc, sqlite3.Error) and not isinstance(exc, sqlite3.IntegrityError):
            raise describe_error(exc, path) from exc
        raise

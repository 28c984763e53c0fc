"""Opening SQLite files safely: refuse what is not ours, never overwrite it, never follow
a symbolic link to it, and never open the database file except through SQLite."""

from __future__ import annotations

import os
import sqlite3
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ltm_desktop.core.errors import (
    DatabaseBusy,
    DatabaseReadOnly,
    NotADatabase,
    StorageError,
    UnsafePath,
)

BUSY_TIMEOUT_MS = 10_000
# NORMAL: a commit survives any process crashing; a power cut may lose the commits since
# the last checkpoint (about a second; never the database). FULL (an fsync of the WAL
# per commit) costs about half the add throughput (bench/core_bench.py). See README.
SYNCHRONOUS = "NORMAL"
SYNCHRONOUS_SETTINGS = ("NORMAL", "FULL")
# SQLite truncates the WAL to this size when it starts writing it from the start again
JOURNAL_SIZE_LIMIT = 4 * 1024 * 1024


def journals(path: Path) -> tuple[Path, Path]:
    """The database's ``-wal`` and ``-shm`` files (SQLite names them after it)."""
    return path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")


def refuse_symlink(path: Path) -> None:
    """Refuse a database, ``-wal`` or ``-shm`` that is a symbolic link, before SQLite opens
    it (SQLite follows links): whatever the link points to, outside the data dir or into
    someone else's file, would be read and written as ours. ``lstat`` opens nothing."""
    for candidate in (path, *journals(path)):
        try:
            info = os.lstat(candidate)
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise StorageError(f"cannot read {candidate}: {exc.strerror}") from exc
        if stat.S_ISLNK(info.st_mode):
            raise UnsafePath(
                f"{candidate} is a symbolic link; ltm-desktop does not follow links inside "
                f"{path.parent}. Replace it with the file itself (or move it away)"
            )


def is_missing_or_empty(path: Path) -> bool:
    """No database yet: no file, or an empty one (SQLite writes a new database into it)."""
    try:
        return path.stat().st_size == 0
    except FileNotFoundError:
        return True


def existing_version(path: Path) -> int | None:
    """``user_version`` of the database at ``path``; None when there is none yet (no file, or
    an empty one). Raises NotADatabase for anything that is not an SQLite database.

    The file is read through SQLite only, never with open()/close() of our own: closing
    any descriptor of a file drops every POSIX lock this process holds on it, including
    the locks of SQLite connections already open on it here (another store, the GUI, a
    harness). SQLite's connections in one process share one lock table per file, and
    SQLite keeps a closing connection's descriptor open while others still hold locks,
    so a connection of our own for this check is harmless. A symbolic link is refused
    (``refuse_symlink``).
    """
    refuse_symlink(path)
    try:
        info = path.stat()  # stat() opens nothing
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StorageError(f"cannot read {path}: {exc.strerror}") from exc
    if stat.S_ISDIR(info.st_mode):
        raise NotADatabase(f"{path} is a directory, not an SQLite database")
    if not stat.S_ISREG(info.st_mode):
        raise NotADatabase(f"{path} is not a regular file, so not an SQLite database")
    if info.st_size == 0:
        return None
    try:
        conn = sqlite3.connect(_uri(path, "ro"), uri=True)
    except sqlite3.Error as exc:
        raise _unreadable(exc, path) from exc
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return int(conn.execute("PRAGMA user_version").fetchone()[0])
    except sqlite3.Error as exc:
        raise _unreadable(exc, path) from exc
    finally:
        conn.close()


def _unreadable(exc: sqlite3.Error, path: Path) -> StorageError:
    error = describe_error(exc, path)
    if isinstance(error, NotADatabase):
        return NotADatabase(
            f"{path} is not an SQLite database (or is corrupt: {exc}); it was left untouched. "
            "Move it away or choose another data directory (--data-dir)."
        )
    return error


def _uri(path: Path, mode: str) -> str:
    return f"{path.absolute().as_uri()}?mode={mode}"


def check_writable(path: Path) -> None:
    """Refuse a database that cannot be written before serving it (instead of failing every
    write afterwards). Uses access(2), which honours read-only mounts even for root."""
    directory = path.parent
    if path.exists() and not os.access(path, os.W_OK):
        raise DatabaseReadOnly(
            f"the database {path} is read-only (its permissions or its file system do not "
            "let ltm-desktop write); ltm-desktop does not serve a database it cannot write. "
            f"Make it writable (chmod u+w {path}) or choose another data directory."
        )
    if not os.access(directory, os.W_OK | os.X_OK):
        raise DatabaseReadOnly(
            f"the data directory {directory} is read-only; ltm-desktop needs to write the "
            "database's journal and MEMORY.md files there. Make it writable or choose "
            "another data directory (--data-dir)."
        )


def connect(
    path: Path,
    *,
    readonly: bool = False,
    create: bool = False,
    synchronous: str = SYNCHRONOUS,
    busy_timeout_ms: int = BUSY_TIMEOUT_MS,
) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are explicit) with our pragmas.

    Only ``create`` may make a new file (owner-only, and so is an empty file it fills): a
    connection opened later must not silently start an empty database where ours was
    removed. A symbolic link is refused. ``busy_timeout_ms``: how long a statement waits
    for another process's lock (short for agent hooks, which must not wait).
    """
    if synchronous.upper() not in SYNCHRONOUS_SETTINGS:
        raise ValueError(f"synchronous must be one of {SYNCHRONOUS_SETTINGS}, not {synchronous!r}")
    refuse_symlink(path)
    new = create and is_missing_or_empty(path)
    try:
        conn = sqlite3.connect(
            _uri(path, "rwc" if create else "rw"),
            uri=True,
            isolation_level=None,
            check_same_thread=False,
            timeout=busy_timeout_ms / 1000,
        )
    except sqlite3.Error as exc:
        raise describe_error(exc, path) from exc
    try:
        if new:
            make_private(path)  # before anything is written, or the journals inherit 0644
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        conn.execute("PRAGMA foreign_keys = ON")
        if readonly:
            conn.execute("PRAGMA query_only = ON")
        else:
            mode = _enable_wal(conn, busy_timeout_ms / 1000)
            if str(mode).lower() != "wal":
                raise StorageError(f"cannot switch {path} to WAL mode (got {mode})")
            conn.execute(f"PRAGMA journal_size_limit = {JOURNAL_SIZE_LIMIT}")
            # Deleted and overwritten content is zeroed, so that an erased memory leaves
            # no copy in the file's free space (store/erasing.py).
            conn.execute("PRAGMA secure_delete = ON")
        conn.execute(f"PRAGMA synchronous = {synchronous}")
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise describe_error(exc, path) from exc
    except BaseException:
        conn.close()
        raise
    return conn


def check_write_access(conn: sqlite3.Connection, path: Path) -> None:
    """Take and release the write lock: SQLite opens a file it may not write read-only
    without a word, and only the first write would tell."""
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("ROLLBACK")
    except sqlite3.Error as exc:
        error = describe_error(exc, path)
        if "read-only" in str(error) or "readonly" in str(exc).lower():
            raise DatabaseReadOnly(
                f"the database {path} cannot be written ({exc}); ltm-desktop does not serve "
                "a database it cannot write. Make it and its directory writable, or choose "
                "another data directory."
            ) from exc
        raise error from exc


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


def make_private(path: Path) -> None:
    """Give a database file SQLite has just created owner-only permissions, by path.

    Done before the first write: SQLite gives the -wal and -shm files the permissions
    the database has when it creates them. The file is never opened outside SQLite
    (see ``existing_version``); an existing file's permissions are left as they are.
    """
    try:
        path.chmod(0o600)
    except OSError as exc:
        raise StorageError(f"cannot make {path} private: {exc.strerror}") from exc


def describe_error(exc: sqlite3.Error, path: Path) -> StorageError:
    """Turn an sqlite3 error into a message a person can act on."""
    text = str(exc)
    lowered = text.lower()
    if "not a database" in lowered or "malformed" in lowered or "corrupt" in lowered:
        return NotADatabase(
            f"{path} is corrupt or not an SQLite database ({text}); it was left untouched"
        )
    if "locked" in lowered or "busy" in lowered:
        return DatabaseBusy(f"the database {path} is busy (locked by another process); try again")
    if "full" in lowered:
        return StorageError(f"the disk holding {path} is full; free some space and try again")
    if "readonly" in lowered or "read-only" in lowered:
        return StorageError(f"the database {path} is read-only")
    if "disk i/o" in lowered:
        return StorageError(
            f"the disk holding {path} reported an I/O error ({text}); check the disk and "
            "restart ltm-desktop"
        )
    return StorageError(f"database error on {path}: {text}")


def copy_failure(exc: BaseException, target: Path) -> StorageError | None:
    """What a failed write of the new copy ``target`` (a backup) means to a person, when
    the target is at fault: its disk full, or its directory not writable. None for any
    other failure, which the caller lets stand."""
    if isinstance(exc, sqlite3.Error) and exc.sqlite_errorcode == sqlite3.SQLITE_FULL:
        return StorageError(
            f"the disk holding {target.parent} is full, so the copy could not be written; "
            "free some space and try again"
        )
    if isinstance(exc, OSError) and not isinstance(exc, sqlite3.Error):
        return StorageError(f"cannot write a copy into {target.parent}: {exc.strerror or exc}")
    return None


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

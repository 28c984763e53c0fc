"""Opening the database for writing: every refusal happens here, before anything is served.

A file that is not an SQLite database, a database newer than this code, one that cannot
be written, and a symbolic link are refused with a message that names the path; nothing
is served that would fail every write later. A process that must not create a database
(an agent hook: ``create=False``) also refuses an empty file or an SQLite file without our
schema, which it would otherwise fill. The database file is only ever opened through
SQLite (see ``connection.existing_version`` for why).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ltm_desktop.core.errors import NotADatabase, StorageError
from ltm_desktop.store.audit.anchor import ChainAnchor
from ltm_desktop.store.connection import (
    BUSY_TIMEOUT_MS,
    check_writable,
    check_write_access,
    connect,
    describe_error,
    existing_version,
    refuse_symlink,
)
from ltm_desktop.store.file_guard import FileGuard
from ltm_desktop.store.migrations import Migration, check_not_too_new, migrate


@dataclass(frozen=True, slots=True)
class OpenedDatabase:
    writer: sqlite3.Connection
    schema_version: int
    migration_backup: Path | None
    guard: FileGuard
    anchor: ChainAnchor  # checked against the database at open (``anchor.problem``)


def open_database(
    path: Path,
    backup_dir: Path,
    migrations: Sequence[Migration],
    synchronous: str,
    busy_timeout_ms: int = BUSY_TIMEOUT_MS,
    *,
    create: bool = True,
) -> OpenedDatabase:
    """The writer connection on an up-to-date, writable database at ``path``.

    ``create``: make a new database when there is none (no file, or an empty one);
    without it, only an existing ltm-desktop database is opened (and migrated).
    """
    refuse_symlink(path)
    if create:
        _make_data_dir(path)
    elif not path.exists():
        raise _not_created(f"there is no database at {path}")
    check_writable(path)  # first: SQLite cannot even read a WAL database it cannot write
    version = existing_version(path)
    if version is not None:
        check_not_too_new(version, path, migrations)
    if not create and version is None:
        raise _not_created(
            f"{path} is empty (0 bytes), not an ltm-desktop database (left untouched)"
        )
    if not create and version == 0:  # every migration sets user_version: not our schema
        raise _not_created(
            f"{path} is an SQLite database, but not an ltm-desktop one (left untouched)"
        )
    writer = connect(path, create=create, synchronous=synchronous, busy_timeout_ms=busy_timeout_ms)
    try:
        check_write_access(writer, path)
        backup = migrate(writer, path, backup_dir, migrations)
        schema_version = int(writer.execute("PRAGMA user_version").fetchone()[0])
        writer.execute("PRAGMA wal_autocheckpoint = 0")  # the Checkpointer's job
        guard = FileGuard(path)  # now that SQLite has opened the WAL and -shm
        anchor = ChainAnchor(path, lambda: guard.look().lost is None, guard.database_is_ours)
        anchor.open(writer)
    except sqlite3.Error as exc:
        writer.close()
        raise describe_error(exc, path) from exc
    except BaseException:
        writer.close()
        raise
    return OpenedDatabase(writer, schema_version, backup, guard, anchor)


def _make_data_dir(path: Path) -> None:
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        message = f"cannot create the data directory {path.parent}: {exc.strerror}"
        raise StorageError(message) from exc


def _not_created(found: str) -> NotADatabase:
    """Why a process that must not create a database opens none (it would fill the file)."""
    return NotADatabase(
        f"{found}; this command does not create one: start ltm-desktop (the app or "
        "`ltm-desktop serve`) to make one, or pass the right --data-dir"
    )

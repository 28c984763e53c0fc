"""Backups and restores of the database file, with SQLite's online backup API.

A backup is read by SQLite from the live database (a consistent snapshot, whatever other
connections write meanwhile), written to a temporary file, checked (``integrity_check``)
and only then renamed into place: a backup file that exists is a good one. The copy is a
single self-contained file (journal mode DELETE), so it can be copied anywhere. A restored
copy whose search index is damaged gets it rebuilt (``search_integrity``) before it is put
in place; ``backup_before`` is the copy taken before a repair changes the database.

A restore takes only a file that verifies (``vet_restore``): it is copied (read only)
to a private file beside the database, and that copy, opened immutable, must pass
SQLite's integrity check, hold exactly this ltm-desktop's schema of its version
(``schema_check``: a hostile trigger, view or index is named and refused, with no way
round it), an unbroken audit chain (the first broken link is named) and memories that
are what their history says (``verify``'s replay, handed in by the caller: the chain
covers the history, not the rows, so a row edited in the file shows only there; the
first difference is named). Only then is the current database copied aside and
replaced; a refusal leaves it as it was.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ltm_desktop.core.errors import NotADatabase
from ltm_desktop.store import schema_check
from ltm_desktop.store.audit import anchor as chain_anchor
from ltm_desktop.store.audit import chain as audit_chain
from ltm_desktop.store.audit.verify import FrozenHistory
from ltm_desktop.store.connection import copy_failure, refuse_symlink
from ltm_desktop.store.fts import integrity as search_integrity
from ltm_desktop.store.migrations import copy_aside, latest_version

log = logging.getLogger(__name__)

BACKUP_PREFIX = "ltm-backup-"
BUSY_TIMEOUT_MS = 10_000
SHOWN_PROBLEMS = 5  # named in a refusal; the rest are counted
# ``core.verifying.check_replay``: where the memories differ from their replayed history.
Replay = Callable[[FrozenHistory], list[str]]


@dataclass(frozen=True, slots=True)
class DatabaseFileInfo:
    path: Path
    schema_version: int
    memories: int


def _private_new_file(path: Path) -> None:
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))


def _copy(source: Path, target: Path, *, read_only: bool = False) -> None:
    """The online copy of ``source`` into the new file ``target`` (verified). A copy that
    cannot be written (a full disk, a directory not writable) is a StorageError naming the
    target; the caller removes what was written of it. ``read_only``: ``source`` is opened
    read only (a file to restore: nothing of it may be written, not even a hot journal)."""
    name = f"{source.absolute().as_uri()}?mode=ro" if read_only else str(source)
    src = sqlite3.connect(name, uri=read_only, timeout=BUSY_TIMEOUT_MS / 1000)
    try:
        _private_new_file(target)
        dest = sqlite3.connect(str(target))
        try:
            src.backup(dest)  # every page in one step: one read transaction, one snapshot
            dest.execute("PRAGMA journal_mode=DELETE")
            _verify(dest, target)
        finally:
            dest.close()
    except (sqlite3.Error, OSError) as exc:
        failure = copy_failure(exc, target)
        if failure is None:
            raise
        raise failure from None
    finally:
        src.close()


def _verify(conn: sqlite3.Connection, path: Path) -> DatabaseFileInfo:
    try:
        problems = [row[0] for row in conn.execute("PRAGMA integrity_check(20)")]
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        has_memories = conn.execute(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'memories'"
        ).fetchone()[0]
    except sqlite3.DatabaseError as exc:
        raise NotADatabase(f"{path} is not an ltm-desktop database ({exc})") from None
    if problems != ["ok"]:
        raise NotADatabase(f"{path} fails SQLite's integrity check: {'; '.join(problems[:3])}")
    if not has_memories or version < 1:
        raise NotADatabase(f"{path} is an SQLite database, but not an ltm-desktop one")
    if version > latest_version():
        raise NotADatabase(
            f"{path} has schema version {version}, newer than this ltm-desktop reads "
            f"({latest_version()}); upgrade ltm-desktop first"
        )
    count = int(conn.execute("SELECT count(*) FROM memories").fetchone()[0])
    return DatabaseFileInfo(path, version, count)


def check_database_file(path: Path) -> DatabaseFileInfo:
    """What ``path`` holds, if it is a sound ltm-desktop database (NotADatabase if not);
    read only, and the file is not changed."""
    if not path.is_file():
        raise NotADatabase(f"{path} is not a file")
    conn = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True)
    try:
        return _verify(conn, path)
    finally:
        conn.close()


def backup_database(db_path: Path, target: Path) -> DatabaseFileInfo:
    """Copy the live database at ``db_path`` to ``target`` (replaced if it exists); a
    symbolic link in place of the database is refused, never followed."""
    refuse_symlink(db_path)
    temp = target.with_name(f".{target.name}.{os.getpid()}.part")
    temp.unlink(missing_ok=True)
    try:
        _copy(db_path, temp)
        info = check_database_file(temp)
        os.replace(temp, target)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    return DatabaseFileInfo(target, info.schema_version, info.memories)


def automatic_backups(backup_dir: Path) -> list[Path]:
    """The backups ``backup`` made into ``backup_dir``, newest first."""
    if not backup_dir.is_dir():
        return []
    found = [p for p in backup_dir.glob(f"{BACKUP_PREFIX}*.sqlite") if p.is_file()]
    return sorted(found, key=lambda p: p.name, reverse=True)


def new_backup_path(backup_dir: Path, now: float) -> Path:
    """A fresh name in ``backup_dir`` that sorts by time (created 0700 if missing)."""
    backup_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(now))
    target = backup_dir / f"{BACKUP_PREFIX}{stamp}.sqlite"
    counter = 1
    while target.exists():
        target = backup_dir / f"{BACKUP_PREFIX}{stamp}-{counter}.sqlite"
        counter += 1
    return target


def prune_backups(backup_dir: Path, keep: int) -> list[Path]:
    """Remove all but the ``keep`` newest automatic backups; returns the removed ones."""
    removed = automatic_backups(backup_dir)[keep:]
    for path in removed:
        path.unlink(missing_ok=True)
    return removed


def backup_before(conn: sqlite3.Connection, backup_dir: Path, why: str) -> Path:
    """A copy of the live database behind ``conn`` taken before ``why`` changes it, as
    migrations take theirs (online, private): ``backups/ltm-before-<why>-<time>.sqlite``.
    Not checked: the database it copies may be the damaged one about to be repaired."""
    return copy_aside(conn, backup_dir, f"before-{why}")


def _repair_search(path: Path, version: int, source: Path) -> None:
    """Rebuild the damaged search indexes of the copy at ``path`` (never of ``source``),
    when it has this version's schema (the rebuild knows no other); else, or if the
    rebuild fails, say how to repair them once restored. The restore goes on either way."""
    conn = sqlite3.connect(str(path), isolation_level=None)
    try:
        tables = [table.name for table in search_integrity.search_tables(conn)]
        damage = search_integrity.find_damage(conn, tables)  # FTS5's check: any schema
        for found in damage:
            label, reason = found.table.label, found.reason
            log.warning("%s: %s %s", source, label, reason)
        if damage and (version != latest_version() or not _rebuilt(conn, damage)):
            log.warning("run `%s` after the restore", search_integrity.REPAIR_COMMAND)
        elif damage:
            log.warning("so it was rebuilt in the restored copy (%s is unchanged)", source)
    finally:
        conn.close()


def _rebuilt(conn: sqlite3.Connection, damage: list[search_integrity.Damage]) -> bool:
    try:
        conn.execute("BEGIN IMMEDIATE")
        for found in damage:
            search_integrity.rebuild(conn, found.table)
        conn.execute("COMMIT")
    except sqlite3.Error as exc:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        log.warning("the search indexes could not be rebuilt in the restored copy: %s", exc)
        return False
    return True


@dataclass(frozen=True, slots=True)
class Restored:
    info: DatabaseFileInfo
    aside: Path | None  # where the database it replaced was kept (None: there was none)


def _refused(source: Path, why: str, problems: list[str]) -> NotADatabase:
    more = len(problems) - SHOWN_PROBLEMS
    shown = "; ".join(problems[:SHOWN_PROBLEMS]) + (f" (and {more} more)" if more > 0 else "")
    return NotADatabase(f"{source} was not restored: {why}: {shown}")


def vet_restore(copy: Path, source: Path, replay: Replay) -> DatabaseFileInfo:
    """What ``copy`` (a private copy of ``source``, which messages name) holds, if it may
    be restored: NotADatabase naming what is wrong if not. Opened immutable and read
    only, so nothing in it runs or is written while it is looked at. ``replay`` compares
    the memories with their history (run last: it reads every row and event)."""
    conn = sqlite3.connect(f"{copy.absolute().as_uri()}?mode=ro&immutable=1", uri=True)
    try:
        info = _verify(conn, source)
        try:
            problems = schema_check.schema_problems(conn)
        except sqlite3.DatabaseError as exc:
            problems = [f"its schema cannot be read ({exc})"]
        if problems:
            why = (
                "its schema is not exactly that of an ltm-desktop database of version "
                f"{info.schema_version}"
            )
            raise _refused(source, why, problems)
        columns = {row[1] for row in conn.execute("PRAGMA table_info(audit)")}
        if "hash" in columns:  # before schema 5 the history is chained when migrated
            broken, _ = audit_chain.check_chain(conn)
            if broken is not None:
                raise _refused(source, "its audit history does not verify", [broken.describe()])
        try:
            problems = replay(FrozenHistory(conn))
        except (ValueError, TypeError) as exc:  # a value no ltm-desktop writes (an action)
            problems = [f"a memory or audit event cannot be read ({exc})"]
        if problems:
            why = "its memories are not what their audit history says"
            raise _refused(source, why, problems)
    except sqlite3.DatabaseError as exc:
        raise NotADatabase(f"{source} was not restored: it cannot be read ({exc})") from None
    finally:
        conn.close()
    return info


def _chain_head(path: Path) -> chain_anchor.Head | None:
    """The head of the chained history in ``path``; None before schema 5 (the migration
    chains it when the database is opened, and the anchor is written then)."""
    conn = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True)
    try:
        return chain_anchor.current_head(conn)
    finally:
        conn.close()


def new_aside_path(backup_dir: Path, label: str = "before-restore") -> Path:
    """A fresh ``backups/ltm-<label>-<time>.sqlite`` (the folder made 0700 if missing)."""
    backup_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    aside = backup_dir / f"ltm-{label}-{stamp}.sqlite"
    counter = 1
    while aside.exists():
        aside = backup_dir / f"ltm-{label}-{stamp}-{counter}.sqlite"
        counter += 1
    return aside


def restore_database(db_path: Path, source: Path, backup_dir: Path, replay: Replay) -> Restored:
    """Put the database in ``source`` in place of ``db_path``, if it verifies
    (``vet_restore``, with ``replay``); the current one is first copied (online, verified) into
    ``backup_dir``. A refusal changes nothing. No connection may have ``db_path`` open
    (the caller holds the data dir's server lock)."""
    temp = db_path.with_name(f".{db_path.name}.restore.part")
    temp.unlink(missing_ok=True)
    aside = None
    try:
        _copy(source, temp, read_only=True)
        info = vet_restore(temp, source, replay)
        if db_path.exists():
            aside = new_aside_path(backup_dir)
            _copy(db_path, aside)
        _repair_search(temp, info.schema_version, source)
        restored_head = _chain_head(temp)
        for suffix in ("-wal", "-shm"):  # the old database's log must not replay onto the new
            db_path.with_name(db_path.name + suffix).unlink(missing_ok=True)
        anchor = chain_anchor.anchor_path(db_path)
        anchor.unlink(missing_ok=True)  # a crash before the new one: anchored afresh at open
        os.replace(temp, db_path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    if restored_head is not None:  # the history as verified is the one to hold to now
        chain_anchor.write_anchor(anchor, restored_head)
    return Restored(DatabaseFileInfo(db_path, info.schema_version, info.memories), aside)

"""Backups and restores of a PostgreSQL store: ``ltm-desktop backup`` and ``restore``
with a database URL (``backups.py`` keeps the data dir's SQLite file).

A backup is PostgreSQL's own ``pg_dump`` archive (custom format) when a ``pg_dump`` that
can dump the server is on ``PATH``, else (or with ``--logical``) ltm-desktop's logical
dump (``dumps.py``: every table of ``migrate``'s row stream, the audit history with its
hashes among them). Either way the caller is told which, and where it is.

A restore puts a logical dump into an **empty** database only (no memory, observation,
audit event, proposal or extraction run: what ``migrate`` refuses too), after the dump
has been checked whole and verified: it is loaded into a scratch SQLite database in the
data dir (removed after) and checked as ``ltm-desktop verify`` checks (the audit chain,
the memories replayed from their history); a dump that fails changes nothing. Then it is
copied in one transaction, the similarity index is rebuilt, and the database is
verified. A pg_dump archive is not restored here (pg_restore wants a database with no
tables; ltm-desktop's schema would be in its way): the refusal says how to.
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

from ltm_desktop import __version__
from ltm_desktop.core.errors import LtmError, NotADatabase
from ltm_desktop.core.files.atomic_files import check_replaceable, replacing
from ltm_desktop.core.settings.launch import Launch
from ltm_desktop.core.settings.paths import prepare_data_dir
from ltm_desktop.dumps import SUFFIX as DUMP_SUFFIX
from ltm_desktop.dumps import DumpRows, is_dump, write_dump
from ltm_desktop.engine.copying import MEMORIES, CopySource, copy_tables

PREFIX = "ltm-pg-backup-"
ARCHIVE_SUFFIX = ".pgdump"
SQLITE_MAGIC = b"SQLite format 3\x00"
NOUNS = {"audit": "audit events", "extraction_runs": "extraction runs"}


class RestoreRefused(LtmError):
    """The file cannot be restored into this database; nothing was changed."""


@dataclass(frozen=True)
class ServerBackupMade:
    path: Path
    memories: int
    location: str  # the store, as a person reads it (never the password)
    tool: str | None  # "pg_dump 15.18"; None: a logical dump
    why_logical: str = ""  # why pg_dump was not used ("": it was not looked for)
    removed: tuple[Path, ...] = ()


@dataclass(frozen=True)
class ServerRestored:
    memories: int
    events: int
    location: str
    problems: tuple[str, ...]
    head: str


def _conninfo(launch: Launch) -> str:
    if launch.database_url is None:
        raise ValueError("no database URL")
    return launch.database_url.conninfo


def _new_path(backup_dir: Path, suffix: str, now: float) -> Path:
    backup_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(now))
    target = backup_dir / f"{PREFIX}{stamp}{suffix}"
    counter = 1
    while target.exists():
        target = backup_dir / f"{PREFIX}{stamp}-{counter}{suffix}"
        counter += 1
    return target


def server_backups(backup_dir: Path) -> list[Path]:
    """The backups ``backup`` made of PostgreSQL stores into ``backup_dir``, newest first."""
    if not backup_dir.is_dir():
        return []
    found = [
        p
        for p in backup_dir.glob(f"{PREFIX}*")
        if p.is_file() and p.suffix in (ARCHIVE_SUFFIX, DUMP_SUFFIX)
    ]
    return sorted(found, key=lambda p: p.name, reverse=True)


def backup_database(
    launch: Launch, output: Path | None, *, logical: bool = False, now: float | None = None
) -> ServerBackupMade:
    """A backup of the launch's PostgreSQL database: to ``output``, or into the data
    dir's ``backups/`` (keeping the newest ``[backup] keep`` of these)."""
    from ltm_desktop.postgres.copying import PgRows
    from ltm_desktop.postgres.pg_dump import find_pg_dump, run_pg_dump

    conninfo = _conninfo(launch)
    now = time.time() if now is None else now
    if output is not None:
        check_replaceable(output)
    backup_dir = launch.paths.backup_dir
    if output is None:
        prepare_data_dir(launch.data_dir)
    rows = PgRows(conninfo)  # first: an unreachable server or a foreign database writes nothing
    try:
        memories = rows.count(MEMORIES)
        location = rows.location
        choice = None if logical else find_pg_dump(rows.server_version)
        if choice is not None and choice.tool is not None:
            rows.close()  # pg_dump takes its own snapshot
            target = output or _new_path(backup_dir, ARCHIVE_SUFFIX, now)
            run_pg_dump(choice.tool, conninfo, target)
            tool: str | None = f"pg_dump {choice.tool.version}"
        else:
            target = output or _new_path(backup_dir, DUMP_SUFFIX, now)
            _write_logical(rows, target, now)
            tool = None
    finally:
        rows.close()
    removed = () if output else _prune(backup_dir, launch.settings.backup_keep)
    why = "" if choice is None else choice.why_not
    return ServerBackupMade(target, memories, location, tool, why, removed)


def _write_logical(rows: CopySource, target: Path, now: float) -> None:
    from ltm_desktop.postgres.schema import SCHEMA_VERSION

    with replacing(target, newline="\n", mode=0o600) as out:
        write_dump(
            rows,
            out,
            app_version=__version__,
            engine="postgresql",
            schema_version=SCHEMA_VERSION,
            now=now,
        )


def _prune(backup_dir: Path, keep: int) -> tuple[Path, ...]:
    removed = tuple(server_backups(backup_dir)[keep:])
    for path in removed:
        path.unlink(missing_ok=True)
    return removed


def _starts_with(path: Path, magic: bytes) -> bool:
    try:
        with path.open("rb") as handle:
            return handle.read(len(magic)) == magic
    except OSError:
        return False


def restore_into_database(launch: Launch, source: Path) -> ServerRestored:
    """Restore the logical dump ``source`` into the launch's PostgreSQL database, which
    must be empty (``RestoreRefused`` otherwise, and for files of other kinds)."""
    from ltm_desktop.postgres.pg_dump import ARCHIVE_MAGIC

    conninfo = _conninfo(launch)
    where = launch.database_url.display if launch.database_url else ""
    if _starts_with(source, ARCHIVE_MAGIC):
        raise RestoreRefused(
            f"{source} is a pg_dump archive, which ltm-desktop does not restore itself: "
            "make a new database (createdb NAME), run pg_restore --no-owner "
            "--single-transaction --exit-on-error --dbname=NAME FILE, point ltm-desktop "
            "at NAME and run ltm-desktop verify"
        )
    if _starts_with(source, SQLITE_MAGIC):
        raise RestoreRefused(
            f"{source} is an SQLite backup, and the memories are in {where}: restore it "
            "into a data dir without the database URL, then copy that with "
            "ltm-desktop migrate --to URL"
        )
    if not source.is_file() or not is_dump(source):
        raise NotADatabase(
            f"{source} is not a logical dump of ltm-desktop (`ltm-desktop backup --logical` "
            "makes one)"
        )
    dump = DumpRows(source)  # checked whole: a cut or edited file is refused here
    problems = _vet(launch, dump)
    if problems:
        raise RestoreRefused(
            f"{source} does not verify ({problems[0]}); nothing was changed"
            + (f" ({len(problems) - 1} more problems)" if len(problems) > 1 else "")
        )
    copied = _load(launch, conninfo, dump)
    return _finish(launch, conninfo, copied)


def _vet(launch: Launch, dump: DumpRows) -> tuple[str, ...]:
    """What ``verify`` finds in the dump, loaded into a scratch SQLite database in the
    data dir (private to the user; removed after)."""
    from ltm_desktop.launching.copies import open_copied_service, open_copy_target

    data_dir = prepare_data_dir(launch.data_dir)
    with tempfile.TemporaryDirectory(prefix=".ltm-restore-check-", dir=data_dir) as scratch:
        checking = replace(launch, data_dir=Path(scratch), database_url=None)
        target = open_copy_target(checking, None)
        try:
            with target.loading() as loading:
                copy_tables(dump, loading, lambda *_: None)
        finally:
            target.close()
        service = open_copied_service(checking, None)
        try:
            return service.integrity.verify(quick=False).problems
        finally:
            service.close()


def _load(launch: Launch, conninfo: str, dump: DumpRows) -> dict[str, int]:
    from ltm_desktop.launching.copies import open_copy_target

    target = open_copy_target(launch, conninfo)
    try:
        with target.loading() as loading:
            held = {name: count for name, count in loading.existing().items() if count}
            if held:
                what = ", ".join(f"{n:,} {NOUNS.get(name, name)}" for name, n in held.items())
                raise RestoreRefused(
                    f"{target.location} is not empty (it holds {what}); restore puts a "
                    "backup into an empty database only, and nothing was changed"
                )
            return copy_tables(dump, loading, lambda *_: None)
    finally:
        target.close()


def _finish(launch: Launch, conninfo: str, copied: dict[str, int]) -> ServerRestored:
    from ltm_desktop.launching.copies import open_copied_service

    service = open_copied_service(launch, conninfo)
    try:
        service.backfill.run_once()
        found = service.integrity.verify(quick=False)
        location = service.database.location
    finally:
        service.close()
    return ServerRestored(copied["memories"], copied["audit"], location, found.problems, found.head)

"""``ltm-desktop backup`` and ``ltm-desktop restore``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ltm_desktop.core.errors import InvalidInput, LtmError
from ltm_desktop.core.files.filelock import FileLock
from ltm_desktop.core.settings.paths import prepare_data_dir, resolve_data_dir

if TYPE_CHECKING:
    from ltm_desktop.core.settings.launch import Launch

AddCommand = Callable[..., argparse.ArgumentParser]
EXIT_PROBLEMS = 1
SERVER_LOCK = "server.lock"  # held by every server and app serving the data dir


class DataDirBusy(LtmError):
    """A server or the app runs on the data dir."""


def add_parsers(commands: Any, add_command: AddCommand) -> None:
    backup = add_command(
        commands,
        "backup",
        help="make a verified copy of the database (safe while the app runs)",
        description="Copy the database with SQLite's online backup (a consistent snapshot "
        "while the app or a server keeps writing), check the copy's integrity, and write it "
        "to FILE, or into the data dir's backups/ folder keeping the newest [backup] keep. "
        "With a database URL (PostgreSQL): pg_dump's custom-format archive when a pg_dump "
        "of the server's major version or newer is on PATH, else a logical dump (every "
        "table and the audit history as JSONL, which restore puts into an empty database); "
        "it says which it made.",
    )
    backup.add_argument(
        "--logical",
        action="store_true",
        help="PostgreSQL: make the logical dump even when pg_dump is there",
    )
    backup.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="where to write the copy: a new file, or a regular file replaced (a symlink, "
        "FIFO, device, directory or - for standard output is refused)",
    )
    restore = add_command(
        commands,
        "restore",
        help="replace the database with a backup (the app and servers must be stopped)",
        description="Check FILE (SQLite's integrity check, exactly this ltm-desktop's "
        "schema of its version, an unbroken audit chain, and every memory as its audit "
        "history says, as `verify` checks; a file that fails is refused, naming what is "
        "wrong, and nothing changes), keep the current database aside in backups/ (and say "
        "where), then put FILE's database in its place. Refuses while a server or the app "
        "runs on the data dir. With a database URL (PostgreSQL): FILE must be a logical "
        "dump (backup --logical), checked the same way, and the database must be empty; a "
        "pg_dump archive is restored with pg_restore (the refusal says how).",
    )
    restore.add_argument("file", metavar="FILE")


def _say(line: str) -> None:
    sys.stdout.write(line + "\n")


def cmd_backup(args: argparse.Namespace) -> int:
    from ltm_desktop.backups import backup_launch
    from ltm_desktop.core.settings.launch import resolve_launch

    if args.output == "-":
        raise InvalidInput(
            "backup writes a database file, not standard output; give a file name "
            "(./- for a file called -)",
            "output",
        )
    output = None if args.output is None else Path(args.output).expanduser().absolute()
    launch = resolve_launch(args.data_dir, args.config, args.database_url)
    if launch.database_url is not None:  # not the data dir's SQLite file, silently
        return _backup_server(launch, output, logical=args.logical)
    if args.logical:
        raise InvalidInput(
            "--logical is for a PostgreSQL store (a database URL); the SQLite backup is "
            "a verified copy of the database file",
            "logical",
        )
    made = backup_launch(launch, output)
    _say(f"backed up {made.memories} memories (schema v{made.schema_version}) to {made.path}")
    for path in made.removed:
        _say(f"removed the older backup {path}")
    return 0


def _backup_server(launch: Launch, output: Path | None, *, logical: bool) -> int:
    from ltm_desktop.server_backups import backup_database

    made = backup_database(launch, output, logical=logical)
    if made.tool is not None:
        _say(
            f"backed up {made.memories} memories of {made.location} with {made.tool} "
            f"(PostgreSQL's custom format; restore it with pg_restore) to {made.path}"
        )
    else:
        why = f"; no pg_dump used: {made.why_logical}" if made.why_logical else ""
        _say(
            f"backed up {made.memories} memories of {made.location} as a logical dump "
            f"(every table and the audit history, JSONL; ltm-desktop restore puts it into an "
            f"empty database) to {made.path}{why}"
        )
    for path in made.removed:
        _say(f"removed the older backup {path}")
    return 0


def _restore_server(launch: Launch, source: Path) -> int:
    from ltm_desktop.server_backups import restore_into_database

    restored = restore_into_database(launch, source)
    _say(
        f"restored {restored.memories} memories and {restored.events} audit events from "
        f"{source} into {restored.location}"
    )
    for problem in restored.problems:
        _say(f"problem: {problem}")
    _say(
        f"check of {restored.location}: {len(restored.problems)} problem(s); head "
        f"{restored.head[:16] or '-'}"
    )
    return EXIT_PROBLEMS if restored.problems else 0


def cmd_restore(args: argparse.Namespace) -> int:
    from ltm_desktop.backups import check_backup_file, restore_data_dir
    from ltm_desktop.core.settings.launch import resolve_launch

    source = Path(args.file).expanduser().absolute()
    launch = resolve_launch(args.data_dir, args.config, args.database_url)
    if launch.database_url is not None:  # never the data dir's SQLite file, silently
        return _restore_server(launch, source)
    check_backup_file(source)  # before anything else: a bad file changes nothing
    data_dir = prepare_data_dir(resolve_data_dir(args.data_dir))
    lock = FileLock(data_dir / SERVER_LOCK)
    if not lock.acquire(blocking=False):
        raise DataDirBusy(
            f"an ltm-desktop server or the app is running on {data_dir}; quit it, then restore"
        )
    try:
        aside, memories = restore_data_dir(data_dir, source)
    finally:
        lock.release()
    _say(f"restored {memories} memories from {source}")
    if aside is not None:
        _say(f"the previous database is kept at {aside}")
    return 0

"""``ltm-desktop migrate --to URL`` and ``--from URL``: a data dir's database copied
between SQLite and PostgreSQL, whole (``engine.copying``'s row stream).

``--to`` copies the data dir's SQLite database into an empty PostgreSQL database;
``--from`` copies a PostgreSQL database into a new data dir. Either way the target gets
every row with its keys (so the audit chain, which hashes scope keys, verifies as it
did), in one transaction: a copy that fails leaves nothing behind. Then the target's
token sets (and any vector its embedder can make) are filled in, and the target is
verified as ``ltm-desktop verify`` does.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ltm_desktop.core.errors import LtmError

if TYPE_CHECKING:  # the CLI imports every command's module; the engines load on use
    from ltm_desktop.core.settings.launch import Launch
    from ltm_desktop.engine.copying import CopySource, CopyTarget, Table

AddCommand = Callable[..., argparse.ArgumentParser]
EXIT_PROBLEMS = 1
NOUNS = {"audit": "audit events", "extraction_runs": "extraction runs"}
PROGRESS_ROWS = 100_000  # a table's progress is said every this many rows (and at its end)


class MigrateRefused(LtmError):
    """The target already holds data."""


def add_parsers(commands: Any, add_command: AddCommand) -> None:
    migrate = add_command(
        commands,
        "migrate",
        help="copy the data dir's database to a PostgreSQL database, or one back",
        description="--to URL copies this data dir's SQLite database into an empty "
        "PostgreSQL database (made with its schema if it has none); --from URL copies a "
        "PostgreSQL database into this data dir, which must not have a database yet. "
        "Every memory, version, audit event (with its hashes), observation, proposal, "
        "extraction run and vector is copied with its ids, in one transaction; search "
        "indexes and similarity token sets are rebuilt on the target, which is then "
        "verified. The source is only read. A target that holds data is refused.",
    )
    way = migrate.add_mutually_exclusive_group(required=True)
    way.add_argument(
        "--to",
        metavar="URL",
        help="the PostgreSQL database to copy into (postgresql://user@host:port/dbname)",
    )
    way.add_argument(
        "--from",
        dest="source",
        metavar="URL",
        help="the PostgreSQL database to copy into this (new) data dir",
    )


def _say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def _checked_url(url: str, option: str) -> str:
    """The URL, if it is a ``postgresql://`` URL ltm-desktop can use (BadDatabaseUrl says
    why not, without repeating it: it may hold a password)."""
    from ltm_desktop.core.settings.database_url import DatabaseUrl

    return DatabaseUrl.parse(url, option).conninfo


def cmd_migrate(args: argparse.Namespace) -> int:
    from ltm_desktop.core.settings.launch import resolve_launch

    launch = resolve_launch(args.data_dir, args.config)
    if args.to is not None:
        return _migrate(launch, None, _checked_url(args.to, "--to"))
    return _migrate(launch, _checked_url(args.source, "--from"), None)


def _migrate(launch: Launch, source_url: str | None, target_url: str | None) -> int:
    """Copy from ``source_url`` (None: the data dir's SQLite database) into
    ``target_url`` (None: a new SQLite database in the data dir)."""
    from ltm_desktop.launching.copies import open_copy_source, open_copy_target

    if target_url is None and launch.paths.db_path.exists() and launch.paths.db_path.stat().st_size:
        raise MigrateRefused(
            f"{launch.data_dir} already has a database ({launch.paths.db_path}); "
            "migrate --from copies into a new data dir only: name another with --data-dir"
        )
    started = time.monotonic()
    source = open_copy_source(launch, source_url)  # first: a bad source makes nothing
    try:
        target = open_copy_target(launch, target_url)
        try:
            copied = _copy(source, target)
        except BaseException:
            target.discard()
            raise
        finally:
            target.close()
    finally:
        source.close()
    copy_seconds = time.monotonic() - started
    _say(
        f"copied {copied['memories']:,} memories, {copied['audit']:,} audit events and "
        f"{copied['memory_vectors']:,} index rows in {copy_seconds:.1f} s"
    )
    return _finish(launch, target_url)


def _copy(source: CopySource, target: CopyTarget) -> dict[str, int]:
    from ltm_desktop.engine.copying import copy_tables

    def progress(table: Table, done: int, total: int) -> None:
        if done == total or (done and done % PROGRESS_ROWS == 0):
            _say(f"  {table.name}: {done:,} of {total:,}")

    with target.loading() as loading:
        held = {name: count for name, count in loading.existing().items() if count}
        if held:
            what = ", ".join(f"{count:,} {NOUNS.get(name, name)}" for name, count in held.items())
            raise MigrateRefused(
                f"{target.location} is not empty (it holds {what}); migrate copies into an "
                "empty database only, and nothing was changed"
            )
        _say(f"copying {source.location} into {target.location}")
        return copy_tables(source, loading, progress)


def _finish(launch: Launch, target_url: str | None) -> int:
    """The target's token sets (and missing vectors) filled in, then verified."""
    from ltm_desktop.launching.copies import open_copied_service

    started = time.monotonic()
    service = open_copied_service(launch, target_url)
    try:
        service.backfill.run_once()
        _say(f"rebuilt the similarity index in {time.monotonic() - started:.1f} s")
        started = time.monotonic()
        found = service.integrity.verify(quick=False)
        location = service.database.location
    finally:
        service.close()
    for problem in found.problems:
        _say(f"problem: {problem}")
    _say(
        f"check of {location}: {len(found.problems)} problem(s); {found.events:,} audit "
        f"events, head {found.head[:16] or '-'} ({time.monotonic() - started:.1f} s)"
    )
    return EXIT_PROBLEMS if found.problems else 0

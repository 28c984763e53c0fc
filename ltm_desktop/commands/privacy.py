"""``ltm-desktop erase``, ``ltm-desktop empty-trash`` and ``ltm-desktop verify``."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ltm_desktop.commands.transfer import _open, _say, _scope_arguments

if TYPE_CHECKING:  # the CLI imports every command's module; the service loads on use
    from ltm_desktop.core.backend import SearchRepair
    from ltm_desktop.core.privacy.erasing_service import Erased
    from ltm_desktop.core.service import MemoryService

AddCommand = Callable[..., argparse.ArgumentParser]
CLI_ACTOR = "cli"
EXIT_PROBLEMS = 1


def add_parsers(commands: Any, add_command: AddCommand) -> None:
    erase = add_command(
        commands,
        "erase",
        help="erase memories of the trash for good (no copy left in the database)",
        description="Erase each memory ID, which must be in the trash (remove it first): "
        "its row and search entries are deleted, its audit events keep who and when but "
        "no content, and (SQLite) the database file and its WAL keep no copy. On "
        "PostgreSQL, VACUUM makes the space of its old row versions reusable without "
        "overwriting it, and the server's WAL, base backups and replicas keep copies until "
        "they expire. Backups taken before still hold it. This cannot be undone.",
    )
    erase.add_argument("ids", nargs="+", metavar="ID")
    empty = add_command(
        commands,
        "empty-trash",
        help="erase every memory in one scope's trash for good",
        description="Erase every memory in the trash of one scope, as `erase` does.",
    )
    _scope_arguments(empty.add_mutually_exclusive_group(required=True))
    verify = add_command(
        commands,
        "verify",
        help="check the database: integrity, search index, audit history chain and replay",
        description="Check the database file's integrity, that each scope's search index "
        "is sound and matches its memories, that the audit history's hash chain and "
        "append-only guard are intact, and that replaying the history gives the memories as "
        "stored. Names the first event that does not check out; exit status 1 if anything "
        "does not. With --repair, search indexes that are damaged or out of step are first "
        "rebuilt from the memories (after a backup into the data dir's backups/).",
    )
    how = verify.add_mutually_exclusive_group()
    how.add_argument(
        "--quick", action="store_true", help="only the bounded check the app runs at start"
    )
    how.add_argument(
        "--repair",
        action="store_true",
        help="rebuild damaged search indexes from the memories (backed up first), then check",
    )


# What an erase on PostgreSQL leaves to the server (docs/privacy.md#erasing-a-memory).
SERVER_COPIES = (
    "the server's WAL, base backups, replicas and pg_dump files keep copies until they "
    "expire (VACUUM FULL rewrites the tables)"
)
SERVER_NOTE = (
    "on PostgreSQL: no table holds it now, and VACUUM has made the space of its old row "
    f"versions reusable, not overwritten it; {SERVER_COPIES}"
)
# When VACUUM skipped a table (a role that does not own them: docs/teams.md), the erase's
# note has said so already.
SERVER_NOTE_UNVACUUMED = f"on PostgreSQL: no table holds it now; {SERVER_COPIES}"


def _report(erased: Erased, on_server: bool) -> None:
    for memory_id in erased.ids:
        _say(f"erased {memory_id}")
    _say(f"{len(erased.ids)} erased; {erased.note}")
    if on_server and erased.ids:
        _say(SERVER_NOTE if erased.scrubbed else SERVER_NOTE_UNVACUUMED)


def _on_server(args: argparse.Namespace) -> bool:
    """Whether the store is a PostgreSQL database (a database URL is set)."""
    from ltm_desktop.core.settings.launch import resolve_launch

    return resolve_launch(args.data_dir, args.config, args.database_url).database_url is not None


def _with_service(args: argparse.Namespace, work: Callable[[MemoryService], object]) -> int:
    service = _open(args)
    try:
        work(service)
    finally:
        service.close()
    return 0


def cmd_erase(args: argparse.Namespace) -> int:
    on_server = _on_server(args)

    def erase(service: MemoryService) -> None:
        for memory_id in args.ids:
            _report(service.eraser.erase(memory_id, CLI_ACTOR), on_server)

    return _with_service(args, erase)


def cmd_empty_trash(args: argparse.Namespace) -> int:
    on_server = _on_server(args)

    def empty(service: MemoryService) -> None:
        if args.cwd is not None:
            project_id = service.resolve_scope(cwd=args.cwd)
        else:
            project_id = service.resolve_scope(project_id=args.project)
        _report(service.eraser.empty_trash(project_id, CLI_ACTOR), on_server)

    return _with_service(args, empty)


def _report_repair(repair: SearchRepair) -> None:
    if repair.backup is None:
        _say("repair: no search index needed rebuilding")
        return
    _say(f"repair: backed up the database to {repair.backup}")
    for label in repair.rebuilt:
        _say(f"repair: rebuilt {label} from its rows")


def cmd_verify(args: argparse.Namespace) -> int:
    service = _open(args)
    try:
        if args.repair:
            _report_repair(service.integrity.repair_search())
        found = service.integrity.verify(quick=args.quick)
    finally:
        service.close()
    kind = "quick check" if found.quick else "check"
    for problem in found.problems:
        _say(f"problem: {problem}")
    _say(
        f"{kind} of {service.database.location}: {len(found.problems)} problem(s); "
        f"{found.events:,} audit events, head {found.head[:16] or '-'}"
    )
    return EXIT_PROBLEMS if found.problems else 0

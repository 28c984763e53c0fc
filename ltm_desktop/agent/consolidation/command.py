"""``ltm-desktop consolidate [--cwd DIR | --global] [--dry-run] [--max-groups N]``.

Runs in this process on the data dir's database, as ``extract`` does (SQLite serves
several processes; a running app shows the new proposals within a second). Without an
``[extractor]`` endpoint it refuses (exit 1, one line) unless ``--dry-run``, which only
lists the groups and asks no model.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any

from ltm_desktop.core.errors import LtmError

if TYPE_CHECKING:
    from ltm_desktop.core.consolidation.consolidator import Report

MAX_GROUPS = 100


def max_groups(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 1 <= value <= MAX_GROUPS:
        raise argparse.ArgumentTypeError(f"must be between 1 and {MAX_GROUPS}")
    return value


def add_parser(commands: Any, add_command: Any) -> None:
    consolidate = add_command(
        commands,
        "consolidate",
        help="propose merging memories that say the same thing in different words",
        description="Find groups of a project's memories that say the same thing in "
        "different words (close in meaning and in words), ask the [extractor] model of "
        "the config to write one memory for each group (credentials redacted), and put "
        "each merge in the Inbox: approving it adds the merged memory and supersedes the "
        "group's memories. At most [consolidate] max_groups groups per run; a memory "
        "waiting in a merge is not proposed again. Exit 1 with the reason if the model "
        "could not be asked (then nothing is written).",
    )
    where = consolidate.add_mutually_exclusive_group()
    where.add_argument(
        "--cwd", metavar="DIR", help="the project's directory (default: the working directory)"
    )
    where.add_argument(
        "--global",
        dest="global_scope",
        action="store_true",
        help="consolidate the global memories instead of a project's",
    )
    consolidate.add_argument(
        "--dry-run",
        action="store_true",
        help="list the groups found; ask no model, write nothing (needs no [extractor])",
    )
    consolidate.add_argument(
        "--max-groups",
        type=max_groups,
        metavar="N",
        help=f"groups per run, 1-{MAX_GROUPS} (default: [consolidate] max_groups)",
    )


def _require_endpoint(config: str | None) -> None:
    """Refuse a run that cannot write merges, before anything is opened."""
    from ltm_desktop.core.settings.config import load_settings
    from ltm_desktop.core.settings.paths import resolve_config_path

    path = resolve_config_path(config)
    if not load_settings(path)[0].extractor_configured:
        raise LtmError(
            "consolidate needs a model to write the merges: set [extractor] base_url "
            f"and model in {path} (--dry-run lists the groups without one); nothing was "
            "changed"
        )


def cmd_consolidate(args: argparse.Namespace) -> int:
    from ltm_desktop.agent.consolidation.running import consolidator_for
    from ltm_desktop.core.consolidation.consolidator import ConsolidationFailed
    from ltm_desktop.embedding.factory import make_embedder
    from ltm_desktop.launching import open_service

    if not args.dry_run:  # before the database is opened (migrations, the purge at start)
        _require_endpoint(args.config)
    opened = open_service(args.data_dir, args.config, database_url=args.database_url)
    for warning in opened.warnings:
        sys.stderr.write(f"ltm-desktop: warning: {warning}\n")
    service = opened.service
    try:
        if args.global_scope:
            project_id = service.ambient.personal  # this person's global scope
        else:
            cwd = os.path.abspath(os.path.expanduser(args.cwd or os.getcwd()))
            project_id = service.resolve_scope(cwd=cwd)
            if not os.path.isdir(cwd) and not service.count_memories(project_id):
                raise LtmError(f"no project at {cwd}: no such directory and no memories")
        consolidator = consolidator_for(
            service,
            make_embedder(service.settings),
            writer=not args.dry_run,
            max_groups=args.max_groups,
        )
        try:
            report = consolidator.run(project_id, dry_run=args.dry_run)
        except ConsolidationFailed as exc:
            raise LtmError(f"consolidation failed: {exc}") from None
    finally:
        service.close()
    _print(report)
    return 0


def _print(report: Report) -> None:
    out = sys.stdout
    if report.dry_run:
        for number, group in enumerate(report.groups, start=1):
            out.write(f"Group {number}: {len(group)} memories\n")
            for memory in group:
                out.write(f"  {memory.id}  {memory.title}\n")
    for proposal in report.proposals:
        out.write(f"Proposed {proposal.id}: “{proposal.title}” merges {len(proposal.merges)}\n")
    out.write(f"Consolidation of {report.project_id}: {report.summary()}\n")
    if report.proposals:
        out.write("Review them in the app's Inbox (or with the API's inbox.list).\n")

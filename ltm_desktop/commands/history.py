"""``ltm-desktop history``: the audit history of a scope or of one memory, with who made
each change: the agent, the person and the machine (``core.actors``)."""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ltm_desktop.commands.transfer import _open, _say, _scope_arguments

if TYPE_CHECKING:  # the CLI imports every command's module; the service loads on use
    from ltm_desktop.core.records import AuditEvent

AddCommand = Callable[..., argparse.ArgumentParser]
DEFAULT_LIMIT = 20
MAX_LIMIT = 10_000


def _limit(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 1 <= value <= MAX_LIMIT:
        raise argparse.ArgumentTypeError(f"must be between 1 and {MAX_LIMIT:,}")
    return value


def add_parsers(commands: Any, add_command: AddCommand) -> None:
    history = add_command(
        commands,
        "history",
        help="show who changed what: the audit history of a scope or a memory",
        description="Print a scope's newest audit events (by default the scope of the "
        "directory it runs in; or one memory's, oldest first), "
        "each with its agent, its person (user@host) and its machine. Events from before "
        "people and machines were recorded show only their agent.",
    )
    which = history.add_mutually_exclusive_group()
    _scope_arguments(which)
    which.add_argument("--memory", metavar="ID", help="one memory's (or proposal's) events")
    history.add_argument(
        "--limit",
        type=_limit,
        default=DEFAULT_LIMIT,
        metavar="N",
        help=f"at most N events of a scope (default {DEFAULT_LIMIT})",
    )
    history.add_argument("--agent", metavar="NAME", help="only this agent's events")
    history.add_argument("--person", metavar="USER@HOST", help="only this person's events")
    history.add_argument("--json", action="store_true", help="print the events as JSON")


def event_line(event: AuditEvent) -> str:
    """One event as a line: when, what, which memory, and who (agent, person, machine)."""
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(event.at))
    who = event.actor
    if event.person is not None:
        who += f" · {event.person}"
    if event.machine is not None:
        who += f" on {event.machine}"
    return f"#{event.seq}  {when}  {event.action.value:<11} {event.memory_id}  by {who}"


def cmd_history(args: argparse.Namespace) -> int:
    from ltm_desktop.api import serialize

    service = _open(args)
    try:
        if args.memory is not None:
            events = service.history.memory(args.memory)
            if args.agent is not None:
                events = [e for e in events if e.actor == args.agent]
            if args.person is not None:
                events = [e for e in events if e.person == args.person]
        else:
            if args.project is not None:
                scope = service.resolve_scope(project_id=args.project)
            else:  # the scope of --cwd, or of the directory it runs in
                scope = service.resolve_scope(cwd=args.cwd or os.getcwd())
            events = service.history.project(
                scope, limit=args.limit, actor=args.agent, person=args.person
            )
        if args.json:
            shapes = [serialize.audit_event(e) for e in events]
            _say(json.dumps(shapes, indent=2, ensure_ascii=False))
        else:
            for event in events:
                _say(event_line(event))
    finally:
        service.close()
    return 0

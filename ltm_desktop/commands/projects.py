"""``ltm-desktop projects``: list projects, where each machine has one, merge one project
into another and detach a path (``core.projects``; docs/projects.md)."""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ltm_desktop.commands.transfer import _absolute, _open, _say

if TYPE_CHECKING:  # the core loads only when a command runs
    from ltm_desktop.core.service import MemoryService

AddCommand = Callable[..., argparse.ArgumentParser]
CLI_ACTOR = "cli"
_SCOPE_ID = re.compile(r"^(global|(proj|repo)_[0-9a-f]{16})$")


def add_parsers(commands: Any, add_command: AddCommand) -> None:
    projects = add_command(
        commands,
        "projects",
        help="list, merge and detach projects (a repository's clones are one project)",
        description="Projects: how working directories become projects (the [projects] "
        "identity setting), where each machine has each project, and merging or splitting "
        "them by hand. See docs/projects.md.",
    )
    actions = projects.add_subparsers(dest="projects_action", metavar="ACTION", required=True)
    listing = add_command(actions, "list", help="every project, its memories and its paths")
    listing.add_argument("--json", action="store_true", help="print machine-readable JSON")
    which = add_command(
        actions,
        "which",
        help="the project a directory is (the identity it resolves to; nothing is written)",
    )
    which.add_argument("directory", metavar="DIR", type=_absolute, nargs="?", default=".")
    merge = add_command(
        actions,
        "merge",
        help="move every memory and observation of SRC into DST, audited",
        description="Merge project SRC into DST (each a project id or a directory): every "
        "active memory of SRC is added to DST as any add is (an identical one there is "
        "refreshed, a near-duplicate superseded) and sent to SRC's trash as moved; its "
        "observations move and its paths become DST's. One transaction per 10,000 memories.",
    )
    merge.add_argument("source", metavar="SRC")
    merge.add_argument("into", metavar="INTO", choices=["into", "INTO"])
    merge.add_argument("target", metavar="DST")
    detach = add_command(
        actions,
        "detach",
        help="make a directory its own project again on this machine, whatever its remote",
        description="Pin DIR (a repository's top, or any directory) to its own path project "
        "on this machine: it no longer resolves to its repository's project. Memories stay "
        "where they are; `projects merge` joins the two again.",
    )
    detach.add_argument("directory", metavar="DIR", type=_absolute)


def _scope(service: MemoryService, text: str) -> str:
    """A project id as given, or the project of a directory."""
    if _SCOPE_ID.match(text):
        return service.resolve_scope(project_id=text)
    return service.resolve_scope(cwd=_absolute(text))


def _list(service: MemoryService, args: argparse.Namespace) -> None:
    rows: list[dict[str, Any]] = []
    for project, count in service.projects():
        paths = service.scopes.paths(project.project_id)
        rows.append(
            {
                "project_id": project.project_id,
                "name": project.name,
                "memories": count,
                "paths": [
                    {"machine": p.machine, "path": p.path, "pinned": p.pinned} for p in paths
                ],
            }
        )
    if args.json:
        _say(json.dumps({"identity": service.scopes.mode, "projects": rows}, indent=2))
        return
    _say(f"identity: {service.scopes.mode} (machine {service.scopes.machine})")
    for row in rows:
        _say(f"{row['project_id']}  {row['name']}  ({row['memories']} memories)")
        for path in row["paths"]:
            pinned = " (detached)" if path["pinned"] else ""
            _say(f"    {path['machine']}: {path['path']}{pinned}")


def _which(service: MemoryService, args: argparse.Namespace) -> None:
    project = service.resolve_cwd(args.directory)
    _say(f"{project.project_id}  {project.name}  {project.path}")


def _merge(service: MemoryService, args: argparse.Namespace) -> None:
    source, target = _scope(service, args.source), _scope(service, args.target)
    merged = service.scopes.merge(source, target, CLI_ACTOR)
    how = ", ".join(f"{n} {outcome}" for outcome, n in sorted(merged.outcomes.items()))
    _say(
        f"merged {merged.source} into {merged.target}: {merged.memories} memories"
        + (f" ({how})" if how else "")
        + f", {merged.observations} observations, {merged.paths} paths"
    )


def _detach(service: MemoryService, args: argparse.Namespace) -> None:
    project = service.scopes.detach(args.directory)
    _say(f"detached {project.path}: it is {project.project_id} on this machine")
    if service.scopes.mode == "path":
        _say('note: [projects] identity is "path": every directory is its own project already')


ACTIONS = {"list": _list, "which": _which, "merge": _merge, "detach": _detach}


def cmd_projects(args: argparse.Namespace) -> int:
    service = _open(args)
    try:
        ACTIONS[args.projects_action](service, args)
    finally:
        service.close()
    return 0

"""``ltm-desktop status``: where data lives, what it holds, and how it is served."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ltm_desktop import __version__

if TYPE_CHECKING:  # the command line starts without reading any config
    from ltm_desktop.core.settings.launch import Launch

EXIT_OK = 0
EXIT_UNREACHABLE = 1  # the PostgreSQL server cannot be reached (what waits is reported)

DURABILITY = {
    "full": "each acknowledged write is on disk",
    "normal": "a power cut may lose about the last second of writes, never the database",
    "off": "the database server runs with fsync off: a crash of its machine may lose or "
    "damage the database",
}


def warn(lines: Sequence[str]) -> None:
    for line in lines:
        print(f"ltm-desktop: warning: {line}", file=sys.stderr)


def cmd_status(args: argparse.Namespace) -> int:
    from ltm_desktop.api import serialize
    from ltm_desktop.api.runtime import socket_for
    from ltm_desktop.core.errors import DatabaseUnreachable
    from ltm_desktop.core.settings.launch import resolve_launch
    from ltm_desktop.core.settings.paths import check_data_dir, data_dir_exists
    from ltm_desktop.launching import open_launch

    launch = resolve_launch(args.data_dir, args.config, args.database_url)
    socket = str(socket_for(launch.data_dir))
    warnings = [*launch.config_problems, *_unservable_http(launch.settings)]
    if data_dir_exists(launch.data_dir):
        check_data_dir(launch.data_dir)  # an unsafe one is refused here, as by every command
    postgres = launch.database_url is not None
    if not postgres and not os.path.lexists(launch.paths.db_path):
        return _status_without_database(args, launch, socket, warnings)
    # Status never creates: an empty PostgreSQL database is refused by its store, saying so.
    outbox = _outbox(launch) if postgres else None
    try:
        opened = open_launch(launch, create=not postgres)
    except DatabaseUnreachable as exc:
        return _status_unreachable(args, launch, socket, warnings, str(exc), outbox)
    warn(warnings)
    service = opened.service
    problems = service.memory_md.problems()
    warn([p.describe() for p in problems])
    try:
        state = service.database.health()
        scopes: list[dict[str, Any]] = []
        for project, active in service.projects():
            stats = service.stats(project.project_id)
            scopes.append(
                {
                    "project_id": project.project_id,
                    "name": service.ambient.label(project.project_id, project.name),
                    "path": project.path,
                    "active": active,
                    "disabled": stats.disabled,
                    "expired": stats.expired,
                    "stale": stats.stale,
                    "observations": stats.observations,
                }
            )
        report: dict[str, Any] = {
            "version": __version__,
            "data_dir": str(service.paths.data_dir),
            "store": "postgresql" if postgres else "sqlite",
            "db_path": service.database.location,  # for PostgreSQL, the URL without password
            "server_version": service.database.server_version,  # None: SQLite's file
            "described": service.database.described,  # "PostgreSQL 15 at host:port/db"
            "database_exists": True,
            "socket": socket,
            "schema_version": service.database.schema_version,
            "synchronous": state.synchronous,
            "problems": list(state.problems),
            "config_path": str(opened.config_path),
            "config_problems": warnings,
            "switches": switches(opened.settings),
            "last_backup": _last_backup(service.paths.data_dir),
            "purged_expired_at_start": opened.purged_at_start,
            "memory_md_problems": [serialize.memory_md_problem(p) for p in problems],
            "semantic_search": serialize.index_status(service.search.check_embedder()),
            "scopes": scopes,
            "identity": service.scopes.mode,  # [projects] identity as it applies
            "global": service.ambient.mode,  # [people] global as it applies
            "person": service.ambient.person or None,  # whose global scope "global" is
            "machine": service.scopes.machine,
        }
        if outbox is not None:
            report["outbox"] = outbox
    finally:
        service.close()
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return EXIT_OK
    print(f"ltm-desktop {__version__}")
    print(f"data dir:  {report['data_dir']}")
    label = "store:    " if postgres else "database: "
    print(f"{label} {report['described']} (schema v{report['schema_version']})")
    durability = DURABILITY.get(state.synchronous, "see docs/data-model.md, Durability and faults")
    print(f"writes:    synchronous={state.synchronous.upper()} ({durability})")
    for problem in state.problems:
        print(f"problem:   {problem}")
    print(f"socket:    {socket} (agents and `ltm-desktop call` reach the app or serve here)")
    print(f"config:    {_config_line(opened.config_path)}")
    print(f"memory:    {describe_switches(report['switches'])}")
    print(f"search:    {describe_search(report['semantic_search'])}")
    print(f"backup:    {report['last_backup'] or 'none yet (ltm-desktop backup)'}")
    print(f"scopes:    {_scopes_line(report)}")
    if outbox is not None and (outbox["text"] or outbox["kept"]):
        print(f"outbox:    {_outbox_line(outbox)}")
    print(f"{'scope':<24} {'active':>7} {'removed':>8} {'stale':>6} {'obs':>5}  path")
    for scope in scopes:
        print(
            f"{scope['name'][:24]:<24} {scope['active']:>7} {scope['disabled']:>8} "
            f"{scope['stale']:>6} {scope['observations']:>5}  {scope['path'] or '-'}"
        )
    return EXIT_OK


def _scopes_line(report: dict[str, Any]) -> str:
    """How directories become projects and what "global" is, on this machine."""
    remote = "by repository (git remote)" if report["identity"] == "remote" else "by path"
    if report["global"] == "personal":
        ambient = f"global is {report['person']}'s own, beside the team's"
    else:
        ambient = "one global scope for everyone on this database"
    return f"projects {remote}; {ambient} (docs/teams.md); machine {report['machine']}"


def _status_without_database(
    args: argparse.Namespace, launch: Launch, socket: str, warnings: list[str]
) -> int:
    """``status`` of a data dir with no database yet (a new install, or a mistyped
    ``--data-dir``): what would be used, and nothing created."""
    warn(warnings)
    paths, config, settings = launch.paths, launch.config_path, launch.settings
    report: dict[str, Any] = {
        "version": __version__,
        "data_dir": str(paths.data_dir),
        "store": "sqlite",
        "db_path": str(paths.db_path),
        "database_exists": False,
        "socket": socket,
        "config_path": str(config),
        "config_problems": warnings,
        "switches": switches(settings),
        "scopes": [],
    }
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return EXIT_OK
    print(f"ltm-desktop {__version__}")
    print(f"data dir:  {paths.data_dir}")
    print(
        f"database:  none yet at {paths.db_path} (the app or `ltm-desktop serve` creates it; "
        "if you expected one, check --data-dir or $LTM_DESKTOP_DATA_DIR)"
    )
    print(f"socket:    {socket}")
    print(f"config:    {_config_line(config)}")
    print(f"memory:    {describe_switches(report['switches'])}")
    return EXIT_OK


def _outbox(launch: Launch) -> dict[str, Any]:
    """The data dir's offline outbox, as ``health`` shows it (read only)."""
    import time

    from ltm_desktop.api import serialize
    from ltm_desktop.core.offline import OfflineStatus
    from ltm_desktop.outbox import peek

    found = peek(launch.data_dir) or (0, None, 0)
    waiting, oldest, kept = found
    state = OfflineStatus(waiting=waiting, oldest_at=oldest, conflicts=kept)
    return dict(serialize.outbox(state, time.time()))


def _outbox_line(outbox: dict[str, Any]) -> str:
    parts = [outbox["text"] or "nothing waiting"]
    if outbox["kept"]:
        parts.append(f"{outbox['kept']} kept aside (could not be applied: `ltm-desktop outbox`)")
    return "; ".join(parts)


def _status_unreachable(
    args: argparse.Namespace,
    launch: Launch,
    socket: str,
    warnings: list[str],
    problem: str,
    outbox: dict[str, Any] | None,
) -> int:
    """``status`` while the PostgreSQL server cannot be reached: what waits on this
    machine for it. Exit status 1: the store is not usable now."""
    import time

    from ltm_desktop.api import serialize
    from ltm_desktop.core.offline import OfflineStatus

    warn(warnings)
    outbox = dict(outbox or {})
    oldest = outbox.get("oldest_queued_at")
    state = OfflineStatus(
        offline=True,
        waiting=int(outbox.get("waiting", 0)),
        oldest_at=None if oldest is None else time.time() - float(outbox["oldest_age_s"]),
        conflicts=int(outbox.get("kept", 0)),
        problem=problem,
    )
    outbox = dict(serialize.outbox(state, time.time()))
    assert launch.database_url is not None
    print(f"ltm-desktop: error: {' '.join(problem.split())}", file=sys.stderr)
    report: dict[str, Any] = {
        "version": __version__,
        "data_dir": str(launch.data_dir),
        "store": "postgresql",
        "db_path": launch.database_url.display,
        "reachable": False,
        "problems": [problem],
        "socket": socket,
        "config_path": str(launch.config_path),
        "config_problems": warnings,
        "outbox": outbox,
    }
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return EXIT_UNREACHABLE
    print(f"ltm-desktop {__version__}")
    print(f"data dir:  {launch.data_dir}")
    print(f"store:     {launch.database_url.display} (unreachable)")
    print(f"problem:   {problem}")
    print(f"outbox:    {_outbox_line(outbox)}")
    print(f"socket:    {socket} (agents' writes are queued by the app or serve while offline)")
    return EXIT_UNREACHABLE


def _unservable_http(settings: Any) -> list[str]:
    """``[http] listen`` as the app and ``serve`` would find it: a warning if they could
    not serve it (they serve the socket API without HTTP then)."""
    from ltm_desktop.api.http.options import http_options
    from ltm_desktop.api.runtime import EndpointError

    try:
        http_options(None, settings)
    except EndpointError as exc:
        return [f"the HTTP API would not be served ([http] listen): {exc}"]
    return []


def _config_line(config: Path) -> str:
    """The config file, and whether it is there (defaults apply when it is not)."""
    return str(config) if config.exists() else f"{config} (not present; defaults apply)"


def switches(settings: Any) -> dict[str, Any]:
    """The switches ``status`` shows: [memory] enabled and backend, [observe]."""
    return {
        "memory_enabled": settings.memory_enabled,
        "backend": settings.memory_backend,
        "agentmemory_url": settings.agentmemory_url,
        "observe_agent_end": settings.observe_agent_end,
        "observe_pre_compact": settings.observe_pre_compact,
    }


def describe_switches(s: dict[str, Any]) -> str:
    def on(value: bool) -> str:
        return "on" if value else "off"

    # "sqlite", the default, means ltm-desktop's own store, whichever engine keeps it (the
    # "store:" line names it); only another backend is worth a word here.
    backend = ""
    if s["backend"] != "sqlite":
        backend = (
            f"backend {s['backend']} at {s['agentmemory_url']} "
            "(not implemented: agents get an error); "
        )
    state = "enabled" if s["memory_enabled"] else "DISABLED ([memory] enabled = false)"
    return (
        f"{state}; {backend}observe agent_end {on(s['observe_agent_end'])}, "
        f"pre_compact {on(s['observe_pre_compact'])}"
    )


def describe_search(semantic: dict[str, Any]) -> str:
    """One line on semantic search for ``status``."""
    if semantic["model"] is None:
        return 'by words only ([search] embedder = "none")'
    if semantic["problem"]:
        return str(semantic["problem"])
    done, total = semantic["with_vectors"], semantic["memories"]
    rest = "" if done >= total else " (the app or `serve` fills in the rest in the background)"
    return f"by words and meaning ({semantic['model']}); {done:,} of {total:,} memories have vectors{rest}"


def _last_backup(data_dir: Any) -> str | None:
    from ltm_desktop.backups import last_backup

    newest = last_backup(data_dir)
    return None if newest is None else str(newest)

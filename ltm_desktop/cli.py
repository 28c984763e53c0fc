"""Command-line entry points: ``ltm-desktop [--data-dir DIR] [COMMAND]``."""

from __future__ import annotations

import argparse
import io
import json
import logging
import os
import sys
from collections.abc import Sequence
from typing import Any

from ltm_desktop import __version__
from ltm_desktop.agent import commands as agent_commands
from ltm_desktop.cli_parser import HookUsageError, Parser, parse
from ltm_desktop.commands import backup as backup_commands
from ltm_desktop.commands import history as history_command
from ltm_desktop.commands import migrate as migrate_command
from ltm_desktop.commands import outbox as outbox_command
from ltm_desktop.commands import privacy as privacy_commands
from ltm_desktop.commands import projects as projects_commands
from ltm_desktop.commands import status as status_command
from ltm_desktop.commands import transfer as transfer_commands
from ltm_desktop.commands.status import warn as _warn
from ltm_desktop.core.errors import BadDatabaseUrl, LtmError
from ltm_desktop.core.settings.paths import ENV_CONFIG, ENV_DATA_DIR, resolve_data_dir

ENV_DATABASE_URL = "LTM_DESKTOP_DATABASE_URL"  # core.settings.launch's, without importing it

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_UNREACHABLE = 3


def global_options(*, after_command: bool) -> argparse.ArgumentParser:
    """--data-dir, --config, --database-url and -v: accepted before the command and after it.

    Defined once; the copy a command's parser inherits has no defaults, so an option
    given before the command is not reset by its absence after it.
    """
    options = argparse.ArgumentParser(add_help=False)
    options.add_argument(
        "--data-dir",
        metavar="DIR",
        help=f"where the database and MEMORY.md files live (default: ${ENV_DATA_DIR} "
        "or the platform's user data dir)",
    )
    options.add_argument(
        "--config",
        metavar="FILE",
        help=f"settings file (default: ${ENV_CONFIG} or the platform's user config dir)",
    )
    options.add_argument(
        "--database-url",
        metavar="URL",
        help="keep the memories in PostgreSQL at this postgresql:// URL instead of SQLite "
        f"in the data dir (default: ${ENV_DATABASE_URL}, else [store] url in the config "
        "file; the password is best kept in ~/.pgpass or $PGPASSWORD)",
    )
    options.add_argument("-v", "--verbose", action="store_true", help="log more detail")
    if after_command:
        for action in options._actions:  # argparse has no public "leave unset" per parser
            action.default = argparse.SUPPRESS
    return options


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="ltm-desktop",
        description="Long-term memory for AI coding agents, curated by a human.",
        parents=[global_options(after_command=False)],
    )
    parser.add_argument("--version", action="version", version=f"ltm-desktop {__version__}")
    parser.add_argument(
        "--demo",
        action="store_true",
        help="open the app on a temporary data dir filled with sample memories",
    )
    parser.add_argument(
        "--self-test",
        action="store_true",
        help="check that this installation works, headless, on a temporary data dir "
        "(API over a socket, search, MEMORY.md, the window offscreen); exit 0 if it does. "
        "With --database-url it writes a test memory into that database: use a scratch one",
    )
    commands = parser.add_subparsers(
        dest="command",
        metavar="COMMAND",
        description="Without a command, ltm-desktop opens the desktop app and serves the agent API.",
    )
    _add_commands(commands)
    return parser


def add_command(commands: Any, name: str, **kwargs: Any) -> argparse.ArgumentParser:
    """A command's parser, which also takes the global options (after the command)."""
    parser: argparse.ArgumentParser = commands.add_parser(
        name, parents=[global_options(after_command=True)], **kwargs
    )
    return parser


def _add_commands(commands: Any) -> None:
    status = add_command(commands, "status", help="show where data lives and what it holds")
    status.add_argument("--json", action="store_true", help="print machine-readable JSON")
    config = add_command(commands, "config", help="show the config file path and its defaults")
    config.add_argument("--defaults", action="store_true", help="print a config file with defaults")
    serve = add_command(commands, "serve", help="run the agent API in the foreground (no window)")
    _endpoint_arguments(serve, serving=True)
    serve.add_argument(
        "--workers",
        type=_positive_int,
        default=1,
        metavar="N",
        help="serve from N processes (more searches per second on several cores; default 1)",
    )
    serve.add_argument(
        "--http",
        metavar="127.0.0.1:PORT",
        help="also serve the HTTP API on loopback (port 0: any; default: [http] listen)",
    )
    call = add_command(
        commands,
        "call",
        help="call one API method and print its JSON result",
        description="Call METHOD with PARAMS (a JSON object) on the running server; "
        "prints the result as JSON, or the error on stderr with a non-zero exit.",
    )
    call.add_argument("method", metavar="METHOD", help="e.g. memory.search (see docs/protocol.md)")
    call.add_argument(
        "params", metavar="JSON-PARAMS", nargs="?", default="{}", help="a JSON object"
    )
    call.add_argument(
        "--client", default="ltm-desktop-cli", help="client name for the audit history"
    )
    _endpoint_arguments(call, serving=False)
    entry = add_command(
        commands,
        "install-desktop-entry",
        help="add ltm-desktop to your applications menu (Linux, this user)",
        description="Install the desktop entry into $XDG_DATA_HOME/applications and the icons "
        "into $XDG_DATA_HOME/icons/hicolor, with Exec pointing at this ltm-desktop.",
    )
    entry.add_argument("--uninstall", action="store_true", help="remove what it installed")
    agent_commands.add_parsers(commands, add_command)
    transfer_commands.add_parsers(commands, add_command)
    backup_commands.add_parsers(commands, add_command)
    privacy_commands.add_parsers(commands, add_command)
    projects_commands.add_parsers(commands, add_command)
    migrate_command.add_parsers(commands, add_command)
    history_command.add_parsers(commands, add_command)
    outbox_command.add_parsers(commands, add_command)


def _positive_int(text: str) -> int:
    value = int(text)
    if not 1 <= value <= 64:
        raise argparse.ArgumentTypeError("must be a whole number from 1 to 64")
    return value


def _endpoint_arguments(parser: argparse.ArgumentParser, *, serving: bool) -> None:
    parser.add_argument(
        "--socket",
        metavar="PATH",
        help="Unix socket path (default: $LTM_DESKTOP_SOCKET or the runtime dir)",
    )
    parser.add_argument(
        "--tcp",
        metavar="127.0.0.1:PORT",
        help="also listen on loopback TCP (port 0: any free port)"
        if serving
        else "connect over loopback TCP instead of the socket (with the server's token file)",
    )


def cmd_config(args: argparse.Namespace) -> int:
    from ltm_desktop.core.settings.config import load_settings
    from ltm_desktop.core.settings.paths import resolve_config_path

    if args.defaults:
        from ltm_desktop.core.settings.config import render_default_config

        sys.stdout.write(render_default_config())
        return EXIT_OK
    path = resolve_config_path(args.config)
    settings, warnings = load_settings(path)
    _warn([*warnings, *_store_url_problem(settings, path)])
    state = "exists" if path.exists() else "not present; defaults apply"
    print(f"{path} ({state})")
    return EXIT_OK


def _store_url_problem(settings: Any, path: Any) -> list[str]:
    """What is wrong with ``[store] url``, for ``config`` (every store-opening command
    refuses it)."""
    from ltm_desktop.core.settings.database_url import DatabaseUrl

    if not settings.store_url:
        return []
    try:
        DatabaseUrl.parse(settings.store_url, f"{path}: [store] url")
    except BadDatabaseUrl as exc:
        return [f"{exc}; commands that open the store refuse it"]
    return []


def cmd_serve(args: argparse.Namespace) -> int:
    from ltm_desktop.serve import serve

    return serve(
        args.data_dir,
        args.config,
        args.socket,
        args.tcp,
        database_url=args.database_url,
        warn=_warn,
        workers=args.workers,
        http=args.http,
    )


def cmd_call(args: argparse.Namespace) -> int:
    from ltm_desktop.api.client import ApiError, Client, ConnectionFailed

    try:
        params = json.loads(args.params)
    except ValueError as exc:
        print(f"ltm-desktop: error: JSON-PARAMS is not valid JSON: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if not isinstance(params, dict):
        print(
            'ltm-desktop: error: JSON-PARAMS must be a JSON object, e.g. \'{"cwd": "/repo"}\'',
            file=sys.stderr,
        )
        return EXIT_USAGE
    from ltm_desktop.api.runtime import (
        ENV_SOCKET,
        ENV_TCP,
        EndpointError,
        default_data_dir,
        socket_for,
    )

    socket_path = args.socket
    chosen = socket_path or args.tcp or os.environ.get(ENV_SOCKET) or os.environ.get(ENV_TCP)
    data_dir = resolve_data_dir(args.data_dir)
    if not chosen and data_dir.resolve() != default_data_dir().resolve():
        socket_path = socket_for(data_dir)  # the server of that data dir, not the default one
    try:
        with Client(socket_path, tcp=args.tcp, client_name=args.client) as client:
            result = client.call(args.method, params)
    except EndpointError as exc:
        print(f"ltm-desktop: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except ConnectionFailed as exc:
        print(f"ltm-desktop: error: {exc}", file=sys.stderr)
        return EXIT_UNREACHABLE
    except ApiError as exc:
        print(f"ltm-desktop: error {exc.code}: {exc}", file=sys.stderr)
        if exc.data is not None:  # e.g. a conflict's current record: what to retry from
            print(json.dumps(exc.data, indent=2, ensure_ascii=False), file=sys.stderr)
        return EXIT_ERROR
    print(json.dumps(result, indent=2, ensure_ascii=False))
    return EXIT_OK


def cmd_install_desktop_entry(args: argparse.Namespace) -> int:
    from ltm_desktop import desktop_entry

    if not desktop_entry.supported():
        print(f"ltm-desktop: error: {desktop_entry.UNSUPPORTED}", file=sys.stderr)
        return EXIT_ERROR
    return desktop_entry.uninstall() if args.uninstall else desktop_entry.install()


def cmd_self_test(args: argparse.Namespace) -> int:
    from ltm_desktop.selftest import run

    return run(database_url=args.database_url)


def cmd_gui(args: argparse.Namespace) -> int:
    """The desktop app, with the agent API served from a background thread."""
    from ltm_desktop.desktop import launch

    return launch(
        args.data_dir, args.config, demo=args.demo, warn=_warn, database_url=args.database_url
    )


COMMANDS = {
    "gui": cmd_gui,
    "status": status_command.cmd_status,
    "config": cmd_config,
    "serve": cmd_serve,
    "call": cmd_call,
    "install-desktop-entry": cmd_install_desktop_entry,
    "tools": agent_commands.cmd_tools,
    "mcp": agent_commands.cmd_mcp,
    "hook": agent_commands.cmd_hook,
    "integrate": agent_commands.cmd_integrate,
    "extract": agent_commands.cmd_extract,
    "consolidate": agent_commands.cmd_consolidate,
    "export": transfer_commands.cmd_export,
    "import": transfer_commands.cmd_import,
    "backup": backup_commands.cmd_backup,
    "restore": backup_commands.cmd_restore,
    "erase": privacy_commands.cmd_erase,
    "empty-trash": privacy_commands.cmd_empty_trash,
    "verify": privacy_commands.cmd_verify,
    "migrate": migrate_command.cmd_migrate,
    "projects": projects_commands.cmd_projects,
    "history": history_command.cmd_history,
    "outbox": outbox_command.cmd_outbox,
}


def _utf8_output() -> None:
    """Exports, JSON and memories go out as UTF-8 whatever the locale or
    PYTHONIOENCODING say (an ascii locale made ``export`` fail at the first accent)."""
    for stream in (sys.stdout, sys.stderr):
        encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
        if encoding != "utf8" and isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(encoding="utf-8", errors="backslashreplace")


def main(argv: Sequence[str] | None = None) -> int:
    _utf8_output()
    words = list(sys.argv[1:] if argv is None else argv)
    args = agent_commands.plain_hook(words)  # a hook is read without building every parser
    if args is None:
        parser = build_parser()
        try:
            args = parse(parser, words)
        except HookUsageError as exc:  # a hook always answers its agent, and exits 0
            return agent_commands.hook_usage_error(str(exc), words)
        if args.self_test and args.command:
            parser.error("--self-test runs on its own, without a COMMAND")
    try:
        _hand_down_database_url(args)
    except BadDatabaseUrl as exc:
        _error(str(exc))
        return EXIT_USAGE
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    command = cmd_self_test if args.self_test else COMMANDS[args.command or "gui"]
    try:
        return command(args)
    except BadDatabaseUrl as exc:  # from $LTM_DESKTOP_DATABASE_URL or [store] url
        _error(str(exc))
        return EXIT_USAGE
    except LtmError as exc:
        _error(str(exc))
    except BrokenPipeError:  # the reader stopped early (`ltm-desktop tools | head -1`)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so that flushing at exit does not fail too
        os.close(devnull)
        return EXIT_OK
    except OSError as exc:  # a file or directory the command needs cannot be used
        where = f" {exc.filename}" if exc.filename else ""
        _error(f"cannot use{where}: {exc.strerror or exc}")
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # a bug; the traceback is for -v, never the default
        logging.getLogger("ltm_desktop").debug("unexpected error", exc_info=True)
        _error(f"unexpected {type(exc).__name__}: {exc} (a bug; -v shows the details)")
    return EXIT_ERROR


def _hand_down_database_url(args: argparse.Namespace) -> None:
    """``--database-url``, checked before anything runs, and put in this process's
    environment: the option wins over the variable, and the processes this one starts
    (``serve``'s workers, the warm MCP process, ``mcp``'s forked opening, ``extract``
    started by a hook) must open the same store. The environment, not their command
    lines: a command line is visible to every user in ``ps``.

    Raises:
        BadDatabaseUrl: the option's URL cannot be used.
    """
    url = getattr(args, "database_url", None)
    if url is None:
        return
    if args.command == "hook":  # never exit 2 (that blocks the agent): its opening says why
        os.environ[ENV_DATABASE_URL] = url
        return
    from ltm_desktop.core.settings.database_url import DatabaseUrl

    DatabaseUrl.parse(url, "--database-url")
    os.environ[ENV_DATABASE_URL] = url


def _error(message: str) -> None:
    """One ``ltm-desktop: error: ...`` line, however many lines the message had."""
    print(f"ltm-desktop: error: {' '.join(message.splitlines())}", file=sys.stderr)

"""``ltm-desktop tools``, ``mcp``, ``hook``, ``integrate`` and ``extract``: their arguments and
what they run.

Kept apart from ``cli.py`` so that the agent commands are one registration there;
nothing heavy is imported until a command runs.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

FORMATS = ("json", "openai", "anthropic", "mcp")
INTEGRATED = ("claude-code", "codex", "gemini")
INSTRUCTIONS = ("full", "brief")  # what `mcp` puts in its instructions (mcp_server.Instructions)


def tool_list(text: str) -> str:
    """``--tools``: ``all`` or a comma list of tool names (checked against the catalogue)."""
    from ltm_desktop.agent.tools.catalogue import UnknownTool, select

    try:
        select(text)
    except UnknownTool as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


AddCommand = Callable[..., argparse.ArgumentParser]


def add_parsers(commands: Any, add_command: AddCommand) -> None:
    """The agent commands, made by the CLI's ``add_command`` (so they take the global options)."""
    tools = add_command(
        commands,
        "tools",
        help="print the memory tools' definitions for an agent framework",
        description="Print the memory tools as JSON, in the shape an agent framework "
        "registers them (OpenAI and Anthropic tool lists, MCP tools/list, or the catalogue).",
    )
    tools.add_argument("--format", choices=FORMATS, default="json", help="default: json")
    _tools_argument(tools)
    mcp = add_command(
        commands,
        "mcp",
        help="serve the memory tools to an agent over MCP (stdio)",
        description="An MCP server on stdin/stdout for Claude Code, Claude Desktop, Cursor, "
        "VS Code, Codex, Gemini CLI and any other MCP client. It uses the running app's "
        "server when one serves the data dir, else opens the database itself. It ends when "
        "stdin closes.",
    )
    mcp.add_argument(
        "--cwd",
        metavar="DIR",
        help="the project's directory (default: the client's MCP roots, else the "
        "working directory)",
    )
    mcp.add_argument(
        "--instructions",
        choices=INSTRUCTIONS,
        default="full",
        help="full (default): the server's instructions carry the project's memory, for "
        "clients without hooks; brief: only how to use the tools, because a session-start "
        "hook injects the memory already (what `integrate` sets up)",
    )
    _tools_argument(mcp)
    hook = add_command(
        commands,
        "hook",
        fails_open=True,  # a malformed command line answers empty: exit 2 blocks the agent
        help="run as an agent's command hook (reads its JSON on stdin, prints its result)",
        description="The hook an agent runs per lifecycle event: AGENT is claude-code, codex, "
        "gemini or generic; EVENT is session-start, user-prompt, pre-compact, stop or "
        "session-end. It always exits 0 with a valid result for the agent; what went wrong "
        "is in hooks.log in the user log dir.",
    )
    # Plain strings, checked by the hook itself.
    hook.add_argument("agent", metavar="AGENT")
    hook.add_argument("event", metavar="EVENT")
    integrate = add_command(
        commands,
        "integrate",
        help="register the hooks and the MCP server in an agent's own config files",
        description="Add ltm-desktop's hooks (ltm-desktop hook ...) and its MCP server to the "
        "config files of Claude Code, Codex or Gemini CLI, with this installation's absolute "
        "path. Files are edited in place (what is not ours is left as it was), each changed "
        "file is backed up first (FILE.ltm-desktop-TIME.bak), and running it again changes "
        "nothing. --data-dir and --config, when given, are passed on to the hooks and server.",
    )
    integrate.add_argument("agent", choices=INTEGRATED, metavar="AGENT", help=", ".join(INTEGRATED))
    integrate.add_argument(
        "--scope",
        choices=("user", "project"),
        default="user",
        help="user: for every project (default); project: the current directory's config",
    )
    integrate.add_argument("--dry-run", action="store_true", help="print the diff; change nothing")
    integrate.add_argument("--uninstall", action="store_true", help="remove what integrate added")
    from ltm_desktop.agent.consolidation.command import add_parser as add_consolidate
    from ltm_desktop.agent.extract_command import add_parser as add_extract

    add_extract(commands, add_command)
    add_consolidate(commands, add_command)


def _tools_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--tools",
        type=tool_list,
        metavar="LIST",
        help="`all` or a comma list of memory_write, memory_search, memory_save, "
        "memory_recall, memory_forget (default: memory_write,memory_search)",
    )


def cmd_tools(args: argparse.Namespace) -> int:
    from ltm_desktop.agent.tools.toolbox import definitions

    json.dump(definitions(args.format, args.tools), sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


def cmd_extract(args: argparse.Namespace) -> int:
    from ltm_desktop.agent.extract_command import cmd_extract as run

    return run(args)


def cmd_consolidate(args: argparse.Namespace) -> int:
    from ltm_desktop.agent.consolidation.command import cmd_consolidate as run

    return run(args)


def cmd_mcp(args: argparse.Namespace) -> int:
    """Handed to the running server's warm MCP process when there is one (start-up in
    tens of milliseconds), else served here (the SDK's import costs about half a second,
    while a forked process opens the memory: ``mcp_forked``)."""
    from ltm_desktop.agent.mcp.handover import hand_over
    from ltm_desktop.core.settings.paths import resolve_config_path, resolve_data_dir

    cwd = os.path.abspath(os.path.expanduser(args.cwd)) if args.cwd else None
    code = hand_over(
        resolve_data_dir(args.data_dir),
        config=resolve_config_path(args.config),
        project_cwd=cwd,
        tools=args.tools,
        instructions=args.instructions,
        verbose=args.verbose,
    )
    if code is not None:
        return code
    from ltm_desktop.agent.mcp.forked import DEFAULT_CLIENT, ForkedOpening
    from ltm_desktop.agent.mcp.quick_import import quick_import

    opening = ForkedOpening.start(args.data_dir, args.config, DEFAULT_CLIENT, cwd)  # before the SDK
    with quick_import():
        from ltm_desktop.agent.mcp.server import serve_stdio

    return serve_stdio(
        args.data_dir,
        args.config,
        cwd=cwd,
        tools=args.tools,
        instructions=args.instructions,
        opening=opening,
    )


# The global options' dests (--database-url reaches the hook through the environment).
HOOK_VALUED = {"--data-dir": "data_dir", "--config": "config", "--database-url": "database_url"}
HOOK_FLAGS = ("-v", "--verbose")


def plain_hook(words: Sequence[str]) -> argparse.Namespace | None:
    """The arguments of a plain ``[OPTIONS] hook AGENT EVENT [OPTIONS]`` command line (the
    global options spelt out in full), as the full parser gives them; None for anything
    else, which the full parser then reads. An agent runs a hook per event: building
    the parser of every command is time it waits for."""
    found = argparse.Namespace(
        command="hook",
        data_dir=None,
        config=None,
        database_url=None,
        verbose=False,
        self_test=False,
        demo=False,
    )
    positionals: list[str] = []
    rest = iter(words)
    for word in rest:
        name, equals, value = word.partition("=")
        if word in HOOK_FLAGS:
            found.verbose = True
        elif name in HOOK_VALUED:
            if not equals:
                value = next(rest, "-")
                if value.startswith("-"):  # argparse's error to give, not ours
                    return None
            setattr(found, HOOK_VALUED[name], value)
        elif word.startswith("-") or len(positionals) == 3:
            return None
        else:
            positionals.append(word)
    if len(positionals) != 3 or positionals[0] != "hook":
        return None
    found.agent, found.event = positionals[1:]
    return found


def cmd_hook(args: argparse.Namespace) -> int:
    from ltm_desktop.agent.hooks.runner import run

    _exit_now(run(args.agent, args.event, args.data_dir, args.config))


def hook_usage_error(message: str, words: list[str]) -> int:
    """``hook`` with a malformed command line (``words``): exit 0 with the empty result
    of the agent named, if one is (else ``{}``), and the reason in the hook log."""
    from ltm_desktop.agent.hooks.events import AGENTS
    from ltm_desktop.agent.hooks.runner import run

    after = words[words.index("hook") + 1 :] if "hook" in words else []
    agent = after[0] if after and after[0] in AGENTS else ""
    _exit_now(
        run(agent, "", None, None, usage_error=f"{message} in `ltm-desktop {shlex.join(words)}`")
    )


def _exit_now(code: int) -> NoReturn:
    """Ends a hook's process at once: everything is written and closed, and an agent waits
    on every hook, so the interpreter's teardown is not worth waiting for (nor is any
    thread a failure left behind). A closed stdout or stderr is None here: no error."""
    import logging

    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError, AttributeError):
            stream.flush()
    logging.shutdown()
    os._exit(code)


def cmd_integrate(args: argparse.Namespace) -> int:
    from ltm_desktop.agent.integrate import apply, plan

    options = []
    if args.data_dir:
        options += ["--data-dir", os.path.abspath(os.path.expanduser(args.data_dir))]
    if args.config:
        options += ["--config", os.path.abspath(os.path.expanduser(args.config))]
    planned = plan(args.agent, args.scope, uninstall=args.uninstall, options=options)
    if args.dry_run:  # the warnings apply() would print first, on stderr beside the diff
        for warning in planned.warnings if planned.changes else []:
            sys.stderr.write(warning + "\n")
        sys.stdout.write(planned.diff() or "nothing to change\n")
        return 0
    for line in apply(planned):
        sys.stdout.write(line + "\n")
    return 0

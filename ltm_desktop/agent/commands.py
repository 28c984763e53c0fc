"""``ltm-desktop tools``, ``mcp`` and ``extract``: their arguments and what they run.

Kept apart from ``cli.py`` so that the agent commands are one registration there;
nothing heavy is imported until a command runs.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from typing import Any

FORMATS = ("json", "openai", "anthropic", "mcp")


def tool_list(text: str) -> str:
    """``--tools``: ``all`` or a comma list of tool names (checked against the catalogue)."""
    from ltm_desktop.agent.catalogue import UnknownTool, select

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
    _tools_argument(mcp)
    from ltm_desktop.agent.extract_command import add_parser as add_extract

    add_extract(commands, add_command)


def _tools_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--tools",
        type=tool_list,
        metavar="LIST",
        help="`all` or a comma list of memory_write, memory_search, memory_save, "
        "memory_recall, memory_forget (default: memory_write,memory_search)",
    )


def cmd_tools(args: argparse.Namespace) -> int:
    from ltm_desktop.agent.toolbox import definitions

    json.dump(definitions(args.format, args.tools), sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


def cmd_extract(args: argparse.Namespace) -> int:
    from ltm_desktop.agent.extract_command import cmd_extract as run

    return run(args)


def cmd_mcp(args: argparse.Namespace) -> int:
    from ltm_desktop.agent.mcp_server import serve_stdio

    cwd = os.path.abspath(os.path.expanduser(args.cwd)) if args.cwd else None
    return serve_stdio(args.data_dir, args.config, cwd=cwd, tools=args.tools)

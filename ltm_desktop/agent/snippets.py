"""How to connect each agent to ``ltm-desktop mcp``: one source for the README and the app.

Every snippet names the installed executable by its absolute path (agents start MCP
servers without the user's shell, so a bare name may not be found).
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SERVER_NAME = "ltm-desktop"
_FLAT_LIST = re.compile(r"\[\n((?:\s*\"(?:[^\"\\]|\\.)*\",?\n)+)\s*\]")


@dataclass(frozen=True, slots=True)
class Snippet:
    agent: str
    where: str  # where the text goes, for a person
    syntax: str  # sh, json or toml
    text: str


def installed_command() -> list[str]:
    """The command that starts this installation (the console script, or the bundle)."""
    from ltm_desktop.desktop_entry import launcher

    return launcher()


def stdio_server(command: list[str] | None = None) -> dict[str, Any]:
    """The MCP server entry every agent's config shares: ``{"command", "args"}``.

    ``command`` starts ltm-desktop (with any global options); default: this installation.
    """
    command = command or installed_command()
    return {"command": command[0], "args": [*command[1:], "mcp"]}


def flat_string_lists(text: str) -> str:
    """Indented JSON ``text`` with its lists of strings on one line, as people write them."""
    # A raw newline cannot occur inside a JSON string, so ",\n" only separates items.
    return _FLAT_LIST.sub(
        lambda m: "[" + ", ".join(i.strip() for i in m[1].split(",\n")) + "]", text
    )


def _json(config: dict[str, Any]) -> str:
    """Indented JSON with lists of strings on one line, as people write these files."""
    return flat_string_lists(json.dumps(config, indent=2, ensure_ascii=False))


def _toml_string(value: str) -> str:
    """A TOML basic string (JSON's string escapes are all valid TOML escapes)."""
    return json.dumps(value, ensure_ascii=False)


def agent_snippets(
    command: list[str] | None = None, home: str | None = None, data_dir: str | None = None
) -> list[Snippet]:
    """The snippets for Claude Code, Claude Desktop, Cursor, VS Code, Codex and Gemini CLI.

    Args:
        command: the command that starts ltm-desktop (default: this installation's).
        home: the directory whose project Claude Desktop (which has no project) writes to.
        data_dir: a data dir other than the default one (the app's ``--data-dir`` or
            ``--demo``): the server then reaches that app's socket, not the default one.
    """
    stdio = stdio_server(command)
    if data_dir is not None:
        stdio["args"] = [*stdio["args"], "--data-dir", data_dir]
    program, args = stdio["command"], stdio["args"]
    home = home or str(Path.home())
    toml_args = ", ".join(_toml_string(a) for a in args)
    return [
        Snippet(
            "Claude Code",
            "Run once in a terminal (for every project; --scope project writes .mcp.json instead).",
            "sh",
            "claude mcp add --transport stdio --scope user "
            f"{SERVER_NAME} -- {shlex.join([program, *args])}",
        ),
        Snippet(
            "Claude Desktop",
            "claude_desktop_config.json (Settings > Developer > Edit Config). Claude Desktop "
            "has no project folder, so its memories go to your home folder's project.",
            "json",
            _json(
                {"mcpServers": {SERVER_NAME: {"command": program, "args": [*args, "--cwd", home]}}}
            ),
        ),
        Snippet(
            "Cursor",
            "~/.cursor/mcp.json (every project) or .cursor/mcp.json in a project.",
            "json",
            _json({"mcpServers": {SERVER_NAME: stdio}}),
        ),
        Snippet(
            "VS Code",
            ".vscode/mcp.json in a workspace, or the user configuration "
            "(MCP: Open User Configuration).",
            "json",
            _json({"servers": {SERVER_NAME: {"type": "stdio", **stdio}}}),
        ),
        Snippet(
            "Codex",
            "~/.codex/config.toml (or .codex/config.toml in a trusted project).",
            "toml",
            f"[mcp_servers.{SERVER_NAME}]\ncommand = {_toml_string(program)}\n"
            f"args = [{toml_args}]\n",
        ),
        Snippet(
            "Gemini CLI",
            "~/.gemini/settings.json (or .gemini/settings.json in a project).",
            "json",
            _json({"mcpServers": {SERVER_NAME: stdio}}),
        ),
    ]


def api_snippets(socket_path: str | None, command: list[str] | None = None) -> list[Snippet]:
    """Python, command-line and raw-socket ways to call the socket API at ``socket_path``.

    Each names the socket explicitly: an app on another data dir (``--data-dir``,
    ``--demo``) listens on a socket of its own, which the defaults would miss.
    ``command`` starts ltm-desktop (default: this installation's).
    """
    command = command or installed_command()
    socket = socket_path or "<socket path>"
    python_socket = f"({socket_path!r})" if socket_path else "()"
    call = [*command, "call"] + (["--socket", socket] if socket_path else [])
    params = '{"cwd": "/path/to/repo", "query": "tests"}'
    request = '{"jsonrpc":"2.0","id":1,"method":"health"}'
    return [
        Snippet(
            "Python client",
            "Python (ltm_desktop on the path)",
            "python",
            "from ltm_desktop.api.client import Client\n"
            f"c = Client{python_socket}\n"
            'c.memory_add("Run the tests with make test", cwd="/path/to/repo")\n',
        ),
        Snippet(
            "Command line", "A terminal", "sh", f"{shlex.join([*call, 'memory.search', params])}\n"
        ),
        Snippet(
            "Raw socket (one JSON-RPC request per line)",
            "A terminal",
            "sh",
            f"echo {shlex.quote(request)} | socat - UNIX-CONNECT:{shlex.quote(socket)}\n",
        ),
    ]


def markdown(snippets: list[Snippet]) -> str:
    """The snippets as README Markdown: a heading-less list of agents with fenced blocks."""
    parts = []
    for snippet in snippets:
        parts.append(
            f"**{snippet.agent}**: {snippet.where}\n\n```{snippet.syntax}\n"
            f"{snippet.text.rstrip()}\n```"
        )
    return "\n\n".join(parts) + "\n"

"""What ``integrate`` registers for each agent, where, and how it recognizes its own entries.

Every hook runs ``<this installation> [--data-dir D] [--config F] hook AGENT EVENT`` by
its absolute path (agents run hooks without the user's shell set-up), except in a
project's files, which teammates commit: there it is ``ltm-desktop`` when that name on
PATH runs this installation (``integrate._command_for``); the MCP server entry is the
connect snippets' own (``agent/snippets.py``).
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ltm_desktop.agent.hooks.events import CLAUDE_CODE, CODEX, GEMINI, NATIVE, SESSION_END
from ltm_desktop.agent.snippets import SERVER_NAME, stdio_server

INTEGRATED_AGENTS = (CLAUDE_CODE, CODEX, GEMINI)
SCOPES = ("user", "project")
HOOK_TIMEOUT = 5  # seconds; the hook answers within 1.5 s whatever happens
SESSION_END_TIMEOUT = 2  # Claude Code waits for SessionEnd hooks this long at most (Codex too)
GEMINI_NAME = "ltm-desktop-{event}"
MCP_OPTIONS = ("--instructions", "brief")  # `mcp` options for a server beside our hooks
# seconds Codex waits for the MCP server to start (`startup_timeout_sec`, 10 by default):
# a cold start (first run after install, a slow disk, a busy machine) can take longer
CODEX_STARTUP_TIMEOUT = 20
# milliseconds Codex 0.171 waits for optional MCP servers before a turn starts without
# their tools (the top-level `mcp_optional_startup_grace_ms`, about 1 s by default): a cold
# `ltm-desktop mcp` answers in about 0.5 s, but 3-4 s on a busy machine (bench/mcp_bench.py).
# Only a wait: a server that is ready, or has failed, ends it at once.
CODEX_STARTUP_GRACE_MS = 5_000


@dataclass(frozen=True, slots=True)
class Target:
    """Where one agent's hooks and MCP server go, for one scope."""

    agent: str
    hooks_file: Path
    mcp_file: Path
    mcp_key: str  # the object holding MCP servers ("mcpServers"; "mcp_servers" in TOML)


def target(agent: str, scope: str, home: Path | None = None, project: Path | None = None) -> Target:
    home = home or Path.home()
    project = project or Path.cwd()
    if agent == CLAUDE_CODE:
        if scope == "user":  # `claude mcp add --scope user` keeps servers in ~/.claude.json
            return Target(
                agent, home / ".claude" / "settings.json", home / ".claude.json", "mcpServers"
            )
        return Target(
            agent, project / ".claude" / "settings.json", project / ".mcp.json", "mcpServers"
        )
    if agent == CODEX:
        base = (
            Path(os.environ.get("CODEX_HOME") or home / ".codex")
            if scope == "user"
            else (project / ".codex")
        )
        return Target(agent, base / "config.toml", base / "config.toml", "mcp_servers")
    base = (home if scope == "user" else project) / ".gemini"
    return Target(agent, base / "settings.json", base / "settings.json", "mcpServers")


def hook_command(command: list[str], options: list[str], agent: str, event: str) -> str:
    return shlex.join([*command, *options, "hook", agent, event])


def hook_groups(agent: str, command: list[str], options: list[str]) -> dict[str, dict[str, Any]]:
    """The agent's event name -> the matcher group to add (one handler, ours)."""
    groups = {}
    for event, native in NATIVE[agent].items():
        if native is None:
            continue
        handler: dict[str, Any]
        line = hook_command(command, options, agent, event)
        if agent == GEMINI:  # named, so `/hooks disable ltm-desktop-stop` works
            handler = {
                "name": GEMINI_NAME.format(event=event),
                "type": "command",
                "command": line,
                "timeout": HOOK_TIMEOUT * 1000,
            }
        else:
            seconds = SESSION_END_TIMEOUT if event == SESSION_END else HOOK_TIMEOUT
            handler = {"type": "command", "command": line, "timeout": seconds}
        groups[native] = {"hooks": [handler]}
    return groups


def mcp_entry(agent: str, command: list[str], options: list[str]) -> dict[str, Any]:
    """The server entry: the connect snippet's, told to leave MEMORY.md out of its
    instructions (the session-start hook installed beside it already gives it to the
    model; twice would spend the context on it twice). Entries from before this flag are
    still ours: the server is known by its name."""
    entry = stdio_server([*command, *options])
    entry["args"] = [*entry["args"], *MCP_OPTIONS]
    if agent == CODEX:  # Codex gives up on a server after 10 s by default
        return {**entry, "startup_timeout_sec": CODEX_STARTUP_TIMEOUT}
    return {"type": "stdio", **entry} if agent == CLAUDE_CODE else entry


def is_our_command(command: object) -> bool:
    """A hook command line that runs ``ltm-desktop ... hook AGENT EVENT``."""
    if not isinstance(command, str):
        return False
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    if not words or not any(w.endswith(("ltm-desktop", "ltm_desktop")) for w in words):
        return False
    return "hook" in words[1:] and len(words) - words.index("hook") == 3


def is_our_group(group: object) -> bool:
    """A matcher group whose every handler is one of ours."""
    if not isinstance(group, dict):
        return False
    handlers = group.get("hooks")
    return (
        isinstance(handlers, list)
        and bool(handlers)
        and all(isinstance(h, dict) and is_our_command(h.get("command")) for h in handlers)
    )


__all__ = ["SERVER_NAME", "Target", "hook_groups", "is_our_group", "mcp_entry", "target"]

"""The Connect dialog's project-specific snippets and its "Test connection" check.

The generated snippets (``agent.snippets``, also printed in docs/agents.md) use a
made-up working directory; the dialog shows the window's own project instead, with a
read-only call, so copying and running a snippet never writes a memory.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from ltm_desktop.agent.snippets import api_snippets
from ltm_desktop.api.client import Client
from ltm_desktop.gui.api_status import socket_path

EXAMPLE_CWD = "/path/to/repo"  # what the generator names as the agent's directory
EXAMPLE_QUERY = "tests"
PYTHON_CAPTION = "Python client"
COMMAND_CAPTION = "Command line"


def project_dir(path: str | None) -> str:
    """The directory an agent of the chosen scope works in (home for the global scope)."""
    return path or str(Path.home())


def python_snippet(socket: str | None, cwd: str) -> str:
    """The generated Python snippet, searching ``cwd``'s project instead of writing."""
    text = next(s.text for s in api_snippets(socket) if s.agent == PYTHON_CAPTION)
    lines = [line for line in text.splitlines() if EXAMPLE_CWD not in line]
    lines.append(f"print(c.memory_search({EXAMPLE_QUERY!r}, cwd={cwd!r}))")
    return "\n".join(lines) + "\n"


def command_snippet(text: str, cwd: str) -> str:
    """The command-line snippet with its ``cwd`` parameter set to ``cwd``."""
    words = shlex.split(text)
    params = json.dumps({"cwd": cwd, "query": EXAMPLE_QUERY})
    return shlex.join([params if EXAMPLE_CWD in w else w for w in words]) + "\n"


def socket_snippets(endpoint: str | None, cwd: str) -> list[tuple[str, str]]:
    """(caption, text) for each way of calling the socket API, for the project at ``cwd``."""
    socket = socket_path(endpoint)
    entries = []
    for snippet in api_snippets(socket):
        text = snippet.text
        if snippet.agent == PYTHON_CAPTION:
            text = python_snippet(socket, cwd)
        elif snippet.agent == COMMAND_CAPTION:
            text = command_snippet(text, cwd)
        entries.append((snippet.agent, text))
    return entries


def one_line(text: str) -> str:
    """``text`` on a single line (a message never shows a traceback)."""
    return " ".join(text.split())


def check_health(endpoint: str | None, error: str | None) -> str:
    """Call the running API's ``health`` at ``endpoint``; one line saying what it found.

    Blocks on the socket: run it in a background task.

    Raises:
        Exception: whatever the connection or the call raised (see ``failure_line``).
    """
    if endpoint is None:
        raise ConnectionError(error or "the agent API is not running in this window")
    if endpoint.startswith("tcp:"):
        client = Client(tcp=endpoint[len("tcp:") :], client_name="connect-dialog", timeout=10)
    else:
        client = Client(socket_path(endpoint), client_name="connect-dialog", timeout=10)
    with client:
        health = client.health()
    memory = "on" if health.get("enabled", True) else "off"
    state = "" if health.get("ok", True) else " (reports problems)"
    return one_line(
        f"Connected: ltm-desktop {health['version']}, protocol {health['protocol']}, "
        f"memory {memory}{state}."
    )


def failure_line(exc: BaseException) -> str:
    """Why the test failed, in one line."""
    reason = one_line(str(exc)) or type(exc).__name__
    return f"Test failed: {reason}"

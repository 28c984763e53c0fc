"""A warm start for ``ltm-desktop mcp`` while the app or ``serve`` runs.

An MCP server needs about half a second before it can answer ``initialize``, nearly all
of it importing the MCP SDK (its pydantic protocol types, built at import). An agent
starts its MCP servers at every session, so while a server of the data dir runs it keeps
one process with the SDK already imported (``mcp_zygote``). ``ltm-desktop mcp`` hands that
process its stdin, stdout and stderr over a Unix socket beside the API's
(``mcp_handover``); the warm process forks a child that serves the client on those very
descriptors, exactly as ``ltm-desktop mcp`` would in its own process, talking to the
server's socket. Behaviour, attribution and live updates are the same; start-up is
shorter. When no warm process answers, ``ltm-desktop mcp`` serves in its own process
(and a forked one opens the memory while it imports the SDK: ``mcp_forked``).

This module is the server's side: start and stop the warm process. It imports no SDK.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)
PROTOCOL_VERSION = 3  # of the hand-over message; a mismatch falls back to a cold start
SUFFIX = ".mcp"
MAX_UNIX_PATH = 104  # as ltm_desktop.api.runtime: the smallest sun_path, minus NUL
STOP_GRACE = 3.0


def warm_socket_for(api_socket: Path) -> Path | None:
    """Where the warm process of the server at ``api_socket`` listens: beside it, with
    ``.mcp`` added, or under a short name derived from it in the same (private) directory
    when that would be too long for a Unix socket; None when even that is."""
    staging = len(".4194304")  # the warm process binds under path.PID first (the largest pid)
    digest = hashlib.sha256(os.fsencode(api_socket)).hexdigest()[:10]
    for path in (Path(str(api_socket) + SUFFIX), api_socket.parent / f"m{digest}"):
        if len(os.fsencode(path)) + staging <= MAX_UNIX_PATH:
            return path
    return None


@dataclass
class WarmMcp:
    """The running warm process; it ends when ``stop`` closes its stdin (or we die)."""

    process: subprocess.Popen[bytes]
    listen: Path

    def stop(self) -> None:
        """End it; it removes its socket itself (only if still its own: a successor's
        server may already have put its own there)."""
        if self.process.stdin is not None:
            with contextlib.suppress(OSError):
                self.process.stdin.close()
        try:
            self.process.wait(STOP_GRACE)
        except subprocess.TimeoutExpired:  # a dead socket file left behind is refused
            self.process.kill()  # by the next caller, and replaced by the next start
            self.process.wait()


def start_warm_mcp(data_dir: Path, config: Path | None, api_socket: Path) -> WarmMcp | None:
    """Start the warm process for the server at ``api_socket``; None if it cannot be.

    Never raises: without it ``ltm-desktop mcp`` only starts slower.
    """
    if getattr(sys, "frozen", False):  # a PyInstaller bundle cannot run ``-m`` modules
        log.info("no warm MCP start in a frozen bundle")
        return None
    listen = warm_socket_for(api_socket)
    if listen is None:
        log.info("no warm MCP start: the socket path %s%s is too long", api_socket, SUFFIX)
        return None
    command = [
        sys.executable,
        "-m",
        "ltm_desktop.agent.mcp.zygote",
        "--listen",
        str(listen),
        "--api-socket",
        str(api_socket),
        "--data-dir",
        str(data_dir),
    ]
    if config is not None:
        command += ["--config", str(config)]
    if log.isEnabledFor(logging.DEBUG):
        command.append("--verbose")
    try:
        process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, close_fds=True
        )
    except OSError as exc:
        log.warning("could not start the warm MCP process: %s", exc)
        return None
    return WarmMcp(process, listen)

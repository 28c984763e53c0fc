"""``ltm-desktop mcp``'s fast path: hand the client to the server's warm MCP process.

See ``mcp_warm`` for why. This side imports neither the SDK nor the store: it finds the
warm socket of the server that serves the data dir, checks that it belongs to this user,
sends its standard streams, and then only waits for the child's exit status, passing on
the signals an MCP client sends to stop its server. Anything short of a child that has
taken over answers None, and the caller serves in its own process as before.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import socket
from pathlib import Path
from types import FrameType

from ltm_desktop.agent.mcp.warm import PROTOCOL_VERSION, warm_socket_for

log = logging.getLogger(__name__)
CONNECT_TIMEOUT = 1.0
START_TIMEOUT = 5.0  # for the warm process to fork a child and that child to answer
FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def hand_over(
    data_dir: Path,
    *,
    config: Path,
    project_cwd: str | None,
    tools: str | None,
    instructions: str = "full",
    verbose: bool = False,
) -> int | None:
    """Serve the client from the warm process; its exit status, or None to serve here.

    ``config``: the settings file this process would read; a warm process reading
    another one refuses (its child would not behave as asked).
    """
    if not hasattr(socket, "send_fds"):  # Windows
        return None
    from ltm_desktop.core.errors import BadDatabaseUrl
    from ltm_desktop.core.settings.launch import env_database_location

    try:
        store = env_database_location()  # the config file's [store] url: same config file
    except BadDatabaseUrl:
        return None  # served here, where opening says what is wrong
    api_socket = _api_socket(data_dir)
    listen = warm_socket_for(api_socket) if api_socket is not None else None
    if listen is None or not listen.exists():
        return None
    header = {
        "v": PROTOCOL_VERSION,
        "data_dir": str(data_dir),
        "config": str(config),
        "store": store,
        "cwd": os.getcwd(),
        "project_cwd": project_cwd,
        "tools": tools,
        "instructions": instructions,
        "verbose": verbose,
    }
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        pid = _start(conn, listen, json.dumps(header).encode())
    except (OSError, ValueError) as exc:
        log.info("no warm MCP start (%s): starting here", exc)
        pid = None
    if pid is None:
        conn.close()
        return None
    log.info("served by pid %d, forked by the warm MCP process at %s", pid, listen)
    with conn:
        return _wait(conn, pid)


def _api_socket(data_dir: Path) -> Path | None:
    from ltm_desktop.agent.connect import server_socket

    return server_socket(data_dir)


def _start(conn: socket.socket, listen: Path, header: bytes) -> int | None:
    """Hand the streams over; the child's pid once it has taken over, else None."""
    from ltm_desktop.api import peercred

    conn.settimeout(CONNECT_TIMEOUT)
    conn.connect(str(listen))
    if peercred.server_uid(conn, listen) not in (None, os.getuid()):
        log.warning("the warm MCP socket %s belongs to another user; not using it", listen)
        return None
    socket.send_fds(conn, [header], [0, 1, 2])
    conn.settimeout(START_TIMEOUT)
    words = _line(conn).split()
    if len(words) != 2 or words[0] != "pid":
        log.info("the warm MCP process refused: %s", " ".join(words) or "no answer")
        return None
    return int(words[1])


def _wait(conn: socket.socket, pid: int) -> int:
    """Let the child serve; until it ends, its exit status. The stop signals an MCP client
    sends are passed on to it over the socket (a pid may mean another process where the
    client runs, e.g. in a sandbox); a child killed by one kills this process likewise."""
    received: list[int] = []

    def forward(signum: int, frame: FrameType | None) -> None:
        received.append(signum)
        with contextlib.suppress(OSError):
            conn.sendall(f"signal {int(signum)}\n".encode())

    for signum in FORWARDED:
        signal.signal(signum, forward)
    conn.settimeout(None)
    conn.sendall(b"go\n")  # from here on the child owns our stdin and stdout
    words = _line(conn).split()
    if len(words) == 2 and words[0] == "exit" and words[1].lstrip("-").isdigit():
        return int(words[1])
    if received:  # it died of the signal we passed on: so do we, as a cold server would
        signal.signal(received[-1], signal.SIG_DFL)
        os.kill(os.getpid(), received[-1])
    log.warning("the MCP server (pid %d, forked by the warm process) ended abnormally", pid)
    return 1


def _line(conn: socket.socket) -> str:
    """One line from the socket ('' at end of stream)."""
    data = b""
    while not data.endswith(b"\n"):
        try:
            chunk = conn.recv(256)
        except InterruptedError:  # pragma: no cover - PEP 475 retries; kept for clarity
            continue
        if not chunk:
            break
        data += chunk
        if len(data) > 4096:
            raise ValueError("an over-long answer")
    return data.decode("utf-8", "replace").strip()

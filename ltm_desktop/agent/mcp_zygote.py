"""The warm MCP process: the SDK imported once, one forked child per ``ltm-desktop mcp``.

Run by the server (``mcp_warm.start_warm_mcp``) as ``python -m ltm_desktop.agent.mcp_zygote``.
It stays single-threaded so that forking is safe, and ends when its stdin (a pipe from
the server) closes. Each hand-over is one message on its Unix socket: a JSON header and,
as ancillary data, the client's stdin, stdout and stderr. The child it forks says
``pid N``, waits for ``go`` (so a caller that gave up never sees two servers read its
stdin), serves the client on those descriptors with ``mcp_server.serve_stdio`` and
finally says ``exit N``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import select
import signal
import socket
import sys
from pathlib import Path
from typing import Any

from ltm_desktop import app
from ltm_desktop.agent import connect, direct_access, mcp_server, socket_access
from ltm_desktop.agent.mcp_warm import PROTOCOL_VERSION
from ltm_desktop.api import client, peercred

# What every child needs, imported once here: the point of this process (the SDK above all).
PRELOADED = (mcp_server, connect, direct_access, socket_access, client, app)

log = logging.getLogger("ltm_desktop.agent.mcp_zygote")
HEADER_LIMIT = 64 * 1024
HANDOVER_TIMEOUT = 5.0
STD_FDS = 3


class Refused(Exception):
    """A hand-over this process will not take (the caller then serves by itself)."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ltm-desktop-mcp-zygote")
    parser.add_argument("--listen", required=True, type=Path)
    parser.add_argument("--api-socket", required=True, type=Path)
    parser.add_argument("--data-dir", required=True, type=Path)
    parser.add_argument("--config")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the server decides: it closes our stdin
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    try:
        mcp_server.warm_up()
    except Exception as exc:  # only slower children then
        log.info("warming the MCP SDK up failed: %s", exc)
    try:
        listener = _listen(args.listen)
    except OSError as exc:
        log.warning("no warm MCP start: cannot listen on %s: %s", args.listen, exc)
        return 1
    try:
        _serve(listener, args)
    finally:
        listener.close()
        args.listen.unlink(missing_ok=True)
    return 0


def _listen(path: Path) -> socket.socket:
    """Listening on ``path``, which appears only once connections are accepted (bound and
    listening under another name, then renamed over a crashed predecessor's, if any)."""
    staging = path.with_name(f"{path.name}.{os.getpid()}")
    staging.unlink(missing_ok=True)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        listener.bind(str(staging))
    finally:
        os.umask(old)
    listener.listen(16)
    os.replace(staging, path)
    return listener


def _serve(listener: socket.socket, args: argparse.Namespace) -> None:
    parent = sys.stdin.fileno()
    while True:
        readable, _, _ = select.select([listener, parent], [], [])
        if parent in readable and not os.read(parent, 4096):
            return  # the server stopped
        if listener in readable:
            conn, _ = listener.accept()
            with conn:
                _take(conn, args)


def _take(conn: socket.socket, args: argparse.Namespace) -> None:
    """Receive one hand-over and fork its child; never raises."""
    fds: list[int] = []
    try:
        conn.settimeout(HANDOVER_TIMEOUT)
        if peercred.peer_uid(conn) not in (None, os.getuid()):
            raise Refused("another user")
        message, fds, flags, _ = socket.recv_fds(conn, HEADER_LIMIT, STD_FDS)
        if flags & getattr(socket, "MSG_CTRUNC", 0) or len(fds) != STD_FDS:
            raise Refused("the standard streams did not arrive")
        header = _header(message, args.data_dir)
        pid = os.fork()
        if pid == 0:
            os._exit(_child(conn, fds, header, args))
    except (OSError, ValueError, Refused) as exc:
        log.info("hand-over refused: %s", exc)
        with contextlib.suppress(OSError):
            conn.sendall(f"refused {exc}\n".encode())
    finally:
        for fd in fds:
            with contextlib.suppress(OSError):
                os.close(fd)


def _header(message: bytes, data_dir: Path) -> dict[str, Any]:
    header = json.loads(message)
    if not isinstance(header, dict) or header.get("v") != PROTOCOL_VERSION:
        raise Refused(f"not a version {PROTOCOL_VERSION} hand-over")
    if Path(str(header.get("data_dir"))).resolve() != data_dir.resolve():
        raise Refused("another data dir")
    for key in ("cwd", "project_cwd", "tools"):
        if header.get(key) is not None and not isinstance(header[key], str):
            raise Refused(f"{key} is not a string")
    if not isinstance(header.get("cwd"), str):
        raise Refused("no working directory")
    return header


def _child(
    conn: socket.socket, fds: list[int], header: dict[str, Any], args: argparse.Namespace
) -> int:
    """The forked child: become the client's MCP server. Returns the exit status."""
    code = 1
    try:
        os.setsid()  # not the server's terminal: its Ctrl+C is not the agent's
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        conn.settimeout(HANDOVER_TIMEOUT)
        conn.sendall(f"pid {os.getpid()}\n".encode())
        if conn.recv(3) != b"go\n":
            return 1  # the caller gave up and serves by itself: do not touch its stdin
        logging.getLogger().setLevel(logging.DEBUG if header.get("verbose") else logging.WARNING)
        with contextlib.suppress(OSError):
            os.chdir(header["cwd"])
        os.environ["LTM_DESKTOP_SOCKET"] = str(args.api_socket)  # this server, nothing else
        code = mcp_server.serve_stdio(
            str(args.data_dir),
            args.config,
            cwd=header.get("project_cwd"),
            tools=header.get("tools"),
            fallback_cwd=header["cwd"],
        )
    except KeyboardInterrupt:
        code = 130
    except BaseException as exc:  # the child must never return into the accept loop
        with contextlib.suppress(Exception):
            log.error("the MCP server stopped: %s", exc, exc_info=log.isEnabledFor(logging.DEBUG))
    finally:
        with contextlib.suppress(OSError):
            conn.settimeout(1.0)
            conn.sendall(f"exit {code}\n".encode())
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
    return code


if __name__ == "__main__":
    raise SystemExit(main())

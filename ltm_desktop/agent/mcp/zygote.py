"""The warm MCP process: the SDK imported once, one forked child per ``ltm-desktop mcp``.

Run by the server (``mcp_warm.start_warm_mcp``) as ``python -m ltm_desktop.agent.mcp.zygote``.
It stays single-threaded so that forking is safe, and ends when its stdin (a pipe from
the server) closes. Each hand-over is one message on its Unix socket: a JSON header and,
as ancillary data, the client's stdin, stdout and stderr. The child it forks says
``pid N``, waits for ``go`` (so a caller that gave up never sees two servers read its
stdin), serves the client on those descriptors with ``mcp_server.serve_stdio`` and
finally says ``exit N``. While it serves, ``signal N`` from the caller is raised in it (the
caller passes on the signals its MCP client sends), and the caller's end of the socket
closing ends it (its client is gone).
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
import threading
from pathlib import Path
from typing import Any

from ltm_desktop import launching
from ltm_desktop.agent import connect, direct_access, socket_access
from ltm_desktop.agent.mcp import server as mcp_server
from ltm_desktop.agent.mcp.warm import PROTOCOL_VERSION
from ltm_desktop.api import client, peercred
from ltm_desktop.core.settings.launch import env_database_location
from ltm_desktop.core.settings.paths import resolve_config_path

# What every child needs, imported once here: the point of this process (the SDK above all).
PRELOADED = (mcp_server, connect, direct_access, socket_access, client, launching)

log = logging.getLogger("ltm_desktop.agent.mcp.zygote")
HEADER_LIMIT = 64 * 1024
HANDOVER_TIMEOUT = 1.0  # well under the caller's wait, so a silent peer costs others little
STD_FDS = 3


class Refused(Exception):
    """A hand-over this process will not take (the caller then serves by itself)."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ltm-desktop-mcp-zygote")
    parser.add_argument("--listen", required=True, type=Path)
    parser.add_argument("--api-socket", required=True, type=Path)
    parser.add_argument("--data-dir", required=True, type=Path)
    parser.add_argument("--config", type=Path)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    args.config = resolve_config_path(args.config)
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
    bound = os.stat(args.listen).st_ino
    try:
        _serve(listener, args)
    finally:
        listener.close()
        with contextlib.suppress(OSError):  # only our own: a successor may have replaced it
            if os.stat(args.listen).st_ino == bound:
                args.listen.unlink()
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
            try:
                conn, _ = listener.accept()
            except OSError as exc:  # e.g. out of descriptors: the caller starts cold
                log.warning("could not accept a hand-over: %s", exc)
                continue
            with conn:
                _take(conn, listener, args)


def _take(conn: socket.socket, listener: socket.socket, args: argparse.Namespace) -> None:
    """Receive one hand-over and fork its child; never raises."""
    fds: list[int] = []
    try:
        conn.settimeout(HANDOVER_TIMEOUT)
        if peercred.peer_uid(conn) not in (None, os.getuid()):
            raise Refused("another user")
        message, fds, flags, _ = socket.recv_fds(conn, HEADER_LIMIT, STD_FDS)
        if flags & getattr(socket, "MSG_CTRUNC", 0) or len(fds) != STD_FDS:
            raise Refused("the standard streams did not arrive")
        header = _header(message, args.data_dir, args.config)
        pid = os.fork()
        if pid == 0:
            listener.close()  # a dead warm process must refuse connections, not queue them
            os._exit(_child(conn, fds, header, args))
    except Exception as exc:  # a bad or hostile message must never end this process
        log.info("hand-over refused: %s", exc)
        with contextlib.suppress(OSError):
            conn.sendall(f"refused {exc}\n".encode())
    finally:
        for fd in fds:
            with contextlib.suppress(OSError):
                os.close(fd)


def _header(message: bytes, data_dir: Path, config: Path) -> dict[str, Any]:
    header = json.loads(message)
    if not isinstance(header, dict) or type(header.get("v")) is not int:
        raise Refused("not a hand-over")
    if header["v"] != PROTOCOL_VERSION:
        raise Refused(f"not a version {PROTOCOL_VERSION} hand-over")
    if Path(str(header.get("data_dir"))).resolve() != data_dir.resolve():
        raise Refused("another data dir")
    if Path(str(header.get("config"))).resolve() != config.resolve():
        raise Refused("another config file")
    if header.get("store", "") != env_database_location():  # --database-url or the variable
        raise Refused("another database URL")
    for key in ("cwd", "project_cwd", "tools", "instructions"):
        if header.get(key) is not None and not isinstance(header[key], str):
            raise Refused(f"{key} is not a string")
    if not isinstance(header.get("cwd"), str):
        raise Refused("no working directory")
    if header.get("instructions", "full") not in mcp_server.INSTRUCTION_KINDS:
        raise Refused("unknown instructions")
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
            os.dup2(fd, target)  # replaces our stdin, the pipe from the server, too
        for fd in fds:
            os.close(fd)
        conn.settimeout(HANDOVER_TIMEOUT)
        conn.sendall(f"pid {os.getpid()}\n".encode())
        if conn.recv(3) != b"go\n":
            return 1  # the caller gave up and serves by itself: do not touch its stdin
        conn.settimeout(None)
        threading.Thread(target=_obey, args=(conn,), name="caller", daemon=True).start()
        logging.getLogger().setLevel(logging.DEBUG if header.get("verbose") else logging.WARNING)
        with contextlib.suppress(OSError):
            os.chdir(header["cwd"])
        os.environ["LTM_DESKTOP_SOCKET"] = str(args.api_socket)  # this server, nothing else
        code = mcp_server.serve_stdio(
            str(args.data_dir),
            str(args.config),
            cwd=header.get("project_cwd"),
            tools=header.get("tools"),
            instructions=header.get("instructions") or "full",
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


def _obey(conn: socket.socket) -> None:
    """The caller's side of the session: ``signal N`` is raised here; its end closing
    (the caller was killed, so its client believes this server gone) ends the session."""
    with contextlib.suppress(OSError):
        for line in conn.makefile("r", encoding="utf-8", errors="replace"):
            words = line.split()
            if words[:1] == ["signal"] and words[-1].isdigit() and int(words[-1]) in FORWARDED:
                os.kill(os.getpid(), int(words[-1]))
    os.kill(os.getpid(), signal.SIGTERM)


FORWARDED = {int(signal.SIGTERM), int(signal.SIGINT), int(signal.SIGHUP)}


if __name__ == "__main__":
    raise SystemExit(main())

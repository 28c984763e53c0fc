"""The listening sockets, bound once and shared by every process that serves them.

Binding is separate from serving so that ``ltm-desktop serve --workers N`` can
bind (and hold the locks) in one parent process and let N forked workers
accept connections on the same sockets.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
from dataclasses import dataclass, field
from pathlib import Path

from ltm_desktop.api import runtime
from ltm_desktop.api.runtime import Endpoint, EndpointError
from ltm_desktop.core.errors import LtmError
from ltm_desktop.core.files.filelock import FileLock

BACKLOG = 256


class ServerAlreadyRunning(LtmError):
    """Another live server owns this socket or data dir; it is never displaced."""


@dataclass
class Listeners:
    unix: socket.socket | None
    tcp: socket.socket | None
    endpoint: Endpoint
    token: str | None = None
    token_file: Path | None = None
    locks: list[FileLock] = field(default_factory=list)

    def close(self) -> None:
        """Close the sockets, remove the socket and token files, release the locks."""
        for sock in (self.unix, self.tcp):
            if sock is not None:
                sock.close()
        if self.endpoint.socket_path is not None:
            self.endpoint.socket_path.unlink(missing_ok=True)
        if self.token_file is not None:
            self.token_file.unlink(missing_ok=True)
        for lock in self.locks:
            lock.release()
        self.locks.clear()


def _lock(locks: list[FileLock], path: Path, what: str) -> None:
    lock = FileLock(path)
    if not lock.acquire(blocking=False):
        raise ServerAlreadyRunning(
            f"another ltm-desktop server is already running for {what}; not starting a second one"
        )
    locks.append(lock)


def _socket_is_live(path: Path) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(1.0)
    try:
        probe.connect(str(path))
    except OSError:
        return False
    else:
        return True
    finally:
        probe.close()


def _bind_unix(path: Path, locks: list[FileLock]) -> socket.socket:
    path = runtime.check_socket_path(path)
    _lock(locks, path.with_name(path.name + ".lock"), f"the socket {path}")
    if path.exists() or path.is_symlink():
        if not path.is_socket():
            raise EndpointError(f"{path} exists and is not a socket; refusing to replace it")
        if _socket_is_live(path):
            raise ServerAlreadyRunning(f"a live server already listens on {path}; not replacing it")
        path.unlink()  # stale: left by a server that died (it would hold the lock otherwise)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.unlink(missing_ok=True)
    try:
        sock.bind(str(temporary))  # private before it gets its public name
        os.chmod(temporary, 0o600)
        os.rename(temporary, path)
        sock.listen(BACKLOG)
    except BaseException:
        sock.close()
        temporary.unlink(missing_ok=True)
        raise
    return sock


def _bind_tcp(address: tuple[str, int]) -> socket.socket:
    host, port = address
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(BACKLOG)
    except BaseException:
        sock.close()
        raise
    return sock


def open_listeners(
    data_dir: Path, socket_path: Path | None, tcp: tuple[str, int] | None
) -> Listeners:
    """Take the data dir's server lock and bind the endpoint(s); undone on any failure."""
    locks: list[FileLock] = []
    unix_sock = tcp_sock = None
    try:
        _lock(locks, data_dir / "server.lock", f"the data dir {data_dir}")
        unix_sock = _bind_unix(socket_path, locks) if socket_path is not None else None
        tcp_sock = _bind_tcp(tcp) if tcp is not None else None
        bound_tcp = None
        token = token_file = None
        if tcp_sock is not None:
            bound_tcp = (tcp[0], int(tcp_sock.getsockname()[1]))  # type: ignore[index]
            token = secrets.token_urlsafe(32)
            token_file = runtime.runtime_dir() / f"tcp-{bound_tcp[1]}.token"
            runtime.write_private_file(token_file, token)
        endpoint = Endpoint(socket_path if unix_sock else None, bound_tcp)
        return Listeners(unix_sock, tcp_sock, endpoint, token, token_file, locks)
    except BaseException:
        for sock in (unix_sock, tcp_sock):
            if sock is not None:
                sock.close()
        if unix_sock is not None and socket_path is not None:
            with contextlib.suppress(OSError):
                socket_path.unlink()
        for lock in locks:
            lock.release()
        raise

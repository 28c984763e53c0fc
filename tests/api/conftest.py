"""A real server on a temporary socket and data dir, started before any client connects."""

from __future__ import annotations

import json
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ltm_desktop.api.client import Client
from ltm_desktop.api.server import ServerOptions
from ltm_desktop.api.server_thread import ServerThread
from ltm_desktop.core.service import MemoryService


@pytest.fixture
def short_dir() -> Iterator[Path]:
    """Unix socket paths must be short; pytest's tmp_path can be too long."""
    path = Path(tempfile.mkdtemp(prefix="ltm-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


ServerFactory = Callable[..., ServerThread]


def wait_until(predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    """Poll a condition (like qtbot.waitUntil) instead of sleeping a fixed time."""
    deadline = time.monotonic() + timeout
    tick = threading.Event()
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout} s")
        tick.wait(0.01)


@pytest.fixture
def start_server(service: MemoryService, short_dir: Path) -> Iterator[ServerFactory]:
    started: list[ServerThread] = []

    def factory(svc: MemoryService | None = None, **overrides: Any) -> ServerThread:
        svc = svc or service
        options = ServerOptions(
            socket_path=overrides.pop("socket_path", short_dir / "s.sock"), **overrides
        )
        thread = ServerThread(svc, svc.paths.data_dir, options)
        started.append(thread)
        assert thread.start(), thread.error
        return thread

    yield factory
    for thread in started:
        thread.stop()


@pytest.fixture
def server(start_server: ServerFactory) -> ServerThread:
    return start_server()


@pytest.fixture
def socket_path(server: ServerThread) -> Path:
    assert server.server.endpoint is not None
    assert server.server.endpoint.socket_path is not None
    return server.server.endpoint.socket_path


@pytest.fixture
def client(socket_path: Path) -> Iterator[Client]:
    with Client(socket_path, client_name="test-agent") as c:
        yield c


class RawConnection:
    """Speaks raw lines to the server, to test what a careless or hostile peer sends."""

    def __init__(self, path: Path | tuple[str, int], timeout: float = 10.0) -> None:
        if isinstance(path, tuple):
            self.sock = socket.create_connection(path, timeout=timeout)
        else:
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.sock.settimeout(timeout)
            self.sock.connect(str(path))
        self.buffer = b""

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def line(self) -> bytes:
        while b"\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("connection closed")
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line

    def reply(self) -> Any:
        return json.loads(self.line())

    def request(self, payload: Any) -> Any:
        self.send(json.dumps(payload).encode() + b"\n")
        return self.reply()

    def closed(self) -> bool:
        """True once the server has closed the connection (waits for it)."""
        try:
            while True:
                chunk = self.sock.recv(65536)
                if not chunk:
                    return True
                self.buffer += chunk
        except (ConnectionResetError, BrokenPipeError):
            return True

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def raw(socket_path: Path) -> Iterator[RawConnection]:
    conn = RawConnection(socket_path)
    yield conn
    conn.close()

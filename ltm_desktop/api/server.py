"""The local socket server: JSON-RPC 2.0, one JSON object per line, asyncio.

One event loop owns every connection; service calls run on a small thread
pool so that a slow query never stalls other clients. Idle clients, clients
that stall mid-line, oversized lines and connection floods are all bounded.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
import struct
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ltm_desktop.api import runtime
from ltm_desktop.api.connection import Connection
from ltm_desktop.api.methods import Dispatcher, Session
from ltm_desktop.api.protocol import (
    BUSY,
    INVALID_REQUEST,
    UNAUTHORIZED,
    RpcError,
    check_request,
    decode_line,
    encode,
    error_message,
    result_message,
    valid_id,
)
from ltm_desktop.api.runtime import Endpoint, EndpointError
from ltm_desktop.core.errors import LtmError
from ltm_desktop.core.filelock import FileLock
from ltm_desktop.core.service import MemoryService

log = logging.getLogger(__name__)
READ_BUFFER = 64 * 1024


class ServerAlreadyRunning(LtmError):
    """Another live server owns this socket or data dir; it is never displaced."""


@dataclass(frozen=True, slots=True)
class ServerOptions:
    socket_path: Path | None
    tcp: tuple[str, int] | None = None
    max_connections: int = 128
    idle_timeout: float = 600.0
    line_timeout: float = 10.0
    auth_timeout: float = 5.0  # TCP peers must call auth within this
    write_timeout: float = 30.0
    workers: int = 4  # more threads only fight over the GIL (measured: 8 was 30% slower)
    housekeeping_interval: float = 600.0  # expire memories whose TTL ran out, this often
    publish_endpoint: bool = False


def peer_uid(sock: socket.socket) -> int | None:
    """The uid of the process at the other end of a Unix socket (Linux), else None."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None or sys.platform != "linux":
        return None
    creds = sock.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i"))
    return int(struct.unpack("3i", creds)[1])


class ApiServer:
    """Serves one MemoryService on a Unix socket and/or loopback TCP."""

    def __init__(self, service: MemoryService, data_dir: Path, options: ServerOptions) -> None:
        self.service = service
        self.data_dir = data_dir
        self.options = options
        self.stopping = False
        self.endpoint: Endpoint | None = None
        self.loop: asyncio.AbstractEventLoop = None  # type: ignore[assignment]  # set in start()
        self._token: str | None = None
        self._token_file: Path | None = None
        self._endpoint_file: Path | None = None
        self._locks: list[FileLock] = []
        self._servers: list[asyncio.AbstractServer] = []
        self._connections: set[Connection] = set()
        self._pool = ThreadPoolExecutor(options.workers, thread_name_prefix="ltm-api")
        self._dispatcher = Dispatcher(service, on_write=self._record_write)
        self._last_action: str | None = None
        self._housekeeping: asyncio.Task[None] | None = None

    # -- status (read from any thread) ------------------------------------

    def connected_clients(self) -> int:
        return len(self._connections)

    def last_action(self) -> str | None:
        return self._last_action

    def _record_write(self, client: str, method: str, result: Any) -> None:
        status = result.get("status") if isinstance(result, dict) else None
        detail = f" ({status})" if status else ""
        self._last_action = f"{client}: {method}{detail} at {time.strftime('%H:%M:%S')}"

    # -- lifecycle --------------------------------------------------------

    def _lock(self, path: Path, what: str) -> None:
        lock = FileLock(path)
        if not lock.acquire(blocking=False):
            raise ServerAlreadyRunning(
                f"another ltm-desktop server is already running for {what}; not starting a second one"
            )
        self._locks.append(lock)

    async def start(self) -> Endpoint:
        self.loop = asyncio.get_running_loop()
        try:
            self._lock(self.data_dir / "server.lock", f"the data dir {self.data_dir}")
            socket_path = await self._start_unix() if self.options.socket_path else None
            tcp = await self._start_tcp() if self.options.tcp else None
        except BaseException:
            await self._teardown()
            raise
        self.endpoint = Endpoint(socket_path, tcp)
        self._housekeeping = asyncio.get_running_loop().create_task(self._housekeep())
        if self.options.publish_endpoint:
            self._endpoint_file = runtime.publish_endpoint(
                self.endpoint, self.data_dir, self._token_file
            )
        return self.endpoint

    async def _start_unix(self) -> Path:
        path = runtime.check_socket_path(self.options.socket_path)  # type: ignore[arg-type]
        self._lock(path.with_name(path.name + ".lock"), f"the socket {path}")
        if path.exists() or path.is_symlink():
            if not path.is_socket():
                raise EndpointError(f"{path} exists and is not a socket; refusing to replace it")
            if _socket_is_live(path):
                raise ServerAlreadyRunning(
                    f"a live server already listens on {path}; not replacing it"
                )
            log.info("removing stale socket %s", path)
            path.unlink()
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        temporary.unlink(missing_ok=True)
        try:
            sock.bind(str(temporary))
            os.chmod(temporary, 0o600)
            os.rename(temporary, path)
            sock.listen(256)
        except BaseException:
            sock.close()
            temporary.unlink(missing_ok=True)
            raise
        server = await asyncio.start_unix_server(self._accept_unix, sock=sock, limit=READ_BUFFER)
        self._servers.append(server)
        return path

    async def _start_tcp(self) -> tuple[str, int]:
        host, port = self.options.tcp  # type: ignore[misc]
        server = await asyncio.start_server(self._accept_tcp, host, port, limit=READ_BUFFER)
        self._servers.append(server)
        bound = server.sockets[0].getsockname()
        actual = (host, int(bound[1]))
        self._token = secrets.token_urlsafe(32)
        self._dispatcher = Dispatcher(self.service, token=self._token, on_write=self._record_write)
        self._token_file = runtime.runtime_dir() / f"tcp-{actual[1]}.token"
        runtime.write_private_file(self._token_file, self._token)
        return actual

    async def _housekeep(self) -> None:
        """Expire what is due while running for days (MEMORY.md then drops it too)."""
        while True:
            await asyncio.sleep(self.options.housekeeping_interval)
            try:
                await self.loop.run_in_executor(self._pool, self.service.purge_expired, None)
            except LtmError as exc:
                log.warning("periodic expiry failed: %s", exc)

    async def stop(self, grace: float = 10.0) -> None:
        """Stop accepting, let requests in flight finish (writes commit), then close."""
        self.stopping = True
        if self._housekeeping is not None:
            self._housekeeping.cancel()
        for server in self._servers:
            server.close()
        for conn in list(self._connections):
            if not conn.busy and conn.task is not None:
                conn.task.cancel()
        tasks = [c.task for c in self._connections if c.task is not None]
        if tasks:
            await asyncio.wait(tasks, timeout=grace)
        await self._teardown()

    async def _teardown(self) -> None:
        for server in self._servers:
            server.close()
            with contextlib.suppress(Exception):
                await server.wait_closed()
        await self.loop.run_in_executor(None, self._pool.shutdown)
        if self.endpoint is not None and self.endpoint.socket_path is not None:
            self.endpoint.socket_path.unlink(missing_ok=True)
        for path in (self._token_file, self._endpoint_file):
            if path is not None:
                path.unlink(missing_ok=True)
        for lock in self._locks:
            lock.release()
        self._locks.clear()

    # -- connections ------------------------------------------------------

    async def _accept_unix(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        sock = writer.get_extra_info("socket")
        uid = peer_uid(sock) if sock is not None else None
        if uid is not None and uid not in (os.getuid(), 0):
            await _refuse(
                writer, RpcError(UNAUTHORIZED, "unauthorized: this socket serves another user")
            )
            return
        await self._serve(reader, writer, Session("unix"))

    async def _accept_tcp(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await self._serve(reader, writer, Session("tcp"))

    async def _serve(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, session: Session
    ) -> None:
        if self.stopping or len(self._connections) >= self.options.max_connections:
            await _refuse(
                writer, RpcError(BUSY, "busy: the server has too many connections; try again later")
            )
            return
        conn = Connection(self, reader, writer, session)
        conn.task = asyncio.current_task()  # type: ignore[assignment]
        session.start_events = conn.start_events
        self._connections.add(conn)
        try:
            await conn.run()
        except (asyncio.CancelledError, ConnectionError, TimeoutError):
            pass
        except Exception:
            log.exception("connection handler failed")
        finally:
            self._connections.discard(conn)
            await conn.close()

    async def handle_line(self, line: bytes, session: Session) -> bytes | None:
        try:
            message = decode_line(line)
        except RpcError as exc:
            return encode(error_message(None, exc))
        if isinstance(message, list):
            if not message:
                return encode(
                    error_message(None, RpcError(INVALID_REQUEST, "invalid request: empty batch"))
                )
            replies = [
                r for r in [await self._handle_one(m, session) for m in message] if r is not None
            ]
            return encode(replies) if replies else None
        reply = await self._handle_one(message, session)
        return None if reply is None else encode(reply)

    async def _handle_one(self, message: Any, session: Session) -> dict[str, Any] | None:
        try:
            request = check_request(message)
        except RpcError as exc:
            return error_message(valid_id(message), exc)
        try:
            result = await self.loop.run_in_executor(
                self._pool, self._dispatcher.dispatch, request, session
            )
        except RpcError as exc:
            return None if request.is_notification else error_message(request.id, exc)
        return None if request.is_notification else result_message(request.id, result)


async def _refuse(writer: asyncio.StreamWriter, error: RpcError) -> None:
    with contextlib.suppress(Exception):
        writer.write(encode(error_message(None, error)))
        await asyncio.wait_for(writer.drain(), 5)
    writer.close()
    with contextlib.suppress(Exception):
        await writer.wait_closed()


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

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
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ltm_desktop.api import runtime
from ltm_desktop.api.call import NotInline, Session
from ltm_desktop.api.change_relay import ChangeRelay
from ltm_desktop.api.connection import Connection
from ltm_desktop.api.listeners import Listeners, open_listeners
from ltm_desktop.api.methods import Dispatcher
from ltm_desktop.api.peercred import peer_uid
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
from ltm_desktop.api.runtime import Endpoint
from ltm_desktop.core.errors import LtmError
from ltm_desktop.core.records import ChangeEvent
from ltm_desktop.core.service import MemoryService

log = logging.getLogger(__name__)
READ_BUFFER = 64 * 1024


class Companion(Protocol):
    """A helper process that lives as long as the server (the warm MCP start)."""

    def stop(self) -> None: ...


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
    # Expire memories whose TTL ran out this often, so MEMORY.md drops them within a minute;
    # when nothing is due it is one indexed lookup.
    housekeeping_interval: float = 60.0
    publish_endpoint: bool = False
    # Started with the server's Unix socket path once it listens, stopped with it; its
    # failure never stops the server (see ltm_desktop.agent.mcp.warm).
    companion: Callable[[Path], Companion | None] | None = None


class ApiServer:
    """Serves one MemoryService on a Unix socket and/or loopback TCP."""

    def __init__(
        self,
        service: MemoryService,
        data_dir: Path,
        options: ServerOptions,
        listeners: Listeners | None = None,
    ) -> None:
        """``listeners``: sockets bound (and locks held) by another process; this server
        then serves them without owning them (one of ``serve --workers`` processes)."""
        self.service = service
        self.data_dir = data_dir
        self.options = options
        self.stopping = False
        self.endpoint: Endpoint | None = None
        self.loop: asyncio.AbstractEventLoop = None  # type: ignore[assignment]  # set in start()
        self._listeners = listeners
        self._owns_listeners = listeners is None
        self._endpoint_file: Path | None = None
        self._companion: Companion | None = None
        self._relay: ChangeRelay | None = None  # events.subscribe's (set in start())
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

    async def start(self) -> Endpoint:
        self.loop = asyncio.get_running_loop()
        if self._listeners is None:
            options = self.options
            self._listeners = await self.loop.run_in_executor(
                None, open_listeners, self.data_dir, options.socket_path, options.tcp
            )
        listeners = self._listeners
        try:
            if listeners.unix is not None:
                self._servers.append(
                    await asyncio.start_unix_server(
                        self._accept_unix, sock=listeners.unix, limit=READ_BUFFER
                    )
                )
            if listeners.tcp is not None:
                self._servers.append(
                    await asyncio.start_server(
                        self._accept_tcp, sock=listeners.tcp, limit=READ_BUFFER
                    )
                )
        except BaseException:
            await self._teardown()
            raise
        self._dispatcher = Dispatcher(
            self.service, token=listeners.token, on_write=self._record_write
        )
        self.endpoint = listeners.endpoint
        self._housekeeping = self.loop.create_task(self._housekeep())
        self._relay = ChangeRelay(self.service, self.loop, self._pool)
        if self.options.publish_endpoint and self._owns_listeners:
            try:
                self._endpoint_file = runtime.publish_endpoint(
                    self.endpoint, self.data_dir, listeners.token_file
                )
            except BaseException:  # a failed start leaves no socket behind to refuse the next
                await self.stop(grace=0)
                raise
        start_companion = self.options.companion
        if start_companion is not None and self._owns_listeners and self.endpoint.socket_path:
            try:
                self._companion = start_companion(self.endpoint.socket_path)
            except Exception as exc:  # a convenience: the server serves without it
                log.warning("could not start %s: %s", start_companion, exc)
        return self.endpoint

    def subscribe(self, deliver: Callable[[ChangeEvent], None]) -> Callable[[], None]:
        """Route every committed change, this process's and others' (``api.change_relay``),
        to ``deliver`` (called on the event loop); call from a worker thread."""
        if self._relay is None:
            raise RuntimeError("the server has not started")
        return self._relay.subscribe(deliver)

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
        if self._relay is not None:
            self._relay.stop()
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
        if self._companion is not None:  # first: it must not outlive our hold on the data dir
            await self.loop.run_in_executor(None, self._companion.stop)
            self._companion = None
        for server in self._servers:
            server.close()
            with contextlib.suppress(Exception):
                await server.wait_closed()
        await self.loop.run_in_executor(None, self._pool.shutdown)
        if self._owns_listeners and self._listeners is not None:
            self._listeners.close()
        if self._endpoint_file is not None:
            self._endpoint_file.unlink(missing_ok=True)

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
        conn.task = asyncio.current_task()
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
            try:
                result = self._dispatcher.dispatch(request, session, inline=True)
            except NotInline:
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

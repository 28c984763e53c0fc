"""A client connection: line framing with size and time limits, replies, event stream."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Protocol

from ltm_desktop.api.call import Session
from ltm_desktop.api.protocol import (
    MAX_LINE_BYTES,
    TOO_LARGE,
    RpcError,
    encode,
    error_message,
    notification,
)
from ltm_desktop.core.records import ChangeEvent

log = logging.getLogger(__name__)


def loop_time() -> float:
    return asyncio.get_running_loop().time()


READ_CHUNK = 64 * 1024
MAX_QUEUED_EVENTS = 10_000


class Limits(Protocol):
    """How long a connection may take (``ServerOptions``), in seconds."""

    @property
    def idle_timeout(self) -> float: ...
    @property
    def line_timeout(self) -> float: ...
    @property
    def auth_timeout(self) -> float: ...
    @property
    def write_timeout(self) -> float: ...


class Host(Protocol):
    """What a connection needs of the server that accepted it (``ApiServer``)."""

    @property
    def options(self) -> Limits: ...
    @property
    def stopping(self) -> bool: ...

    async def handle_line(self, line: bytes, session: Session) -> bytes | None:
        """The reply to one request line (None: only notifications)."""

    def subscribe(self, deliver: Callable[[ChangeEvent], None]) -> Callable[[], None]:
        """Route change events to ``deliver`` on the event loop; returns the unsubscribe."""


class Connection:
    """One client connection: reads lines, answers them in order, streams events."""

    def __init__(
        self,
        server: Host,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        session: Session,
    ) -> None:
        """Made on the event loop, which then runs it."""
        self.server = server
        self.loop = asyncio.get_running_loop()
        self.reader = reader
        self.writer = writer
        self.session = session
        self.busy = False
        self.task: asyncio.Task[None] | None = None
        self.unsubscribe: Callable[[], None] | None = None
        self.events: asyncio.Queue[ChangeEvent] | None = None
        self.sender: asyncio.Task[None] | None = None

    async def send(self, data: bytes) -> None:
        self.writer.write(data)
        await asyncio.wait_for(self.writer.drain(), self.server.options.write_timeout)

    async def run(self) -> None:
        options = self.server.options
        buffer = bytearray()
        # A TCP peer that has not authenticated gets a short leash, so that anonymous
        # connections cannot hold the connection slots the owner's agents need.
        auth_deadline = loop_time() + options.auth_timeout
        while not self.server.stopping:
            newline = buffer.find(b"\n")
            if newline < 0:
                if len(buffer) > MAX_LINE_BYTES:
                    await self._too_large()
                    return
                if buffer:
                    timeout: float | None = options.line_timeout
                else:
                    timeout = None if self.session.subscribed else options.idle_timeout
                if self.session.transport == "tcp" and not self.session.authenticated:
                    timeout = max(
                        0.0, min(timeout or options.auth_timeout, auth_deadline - loop_time())
                    )
                try:
                    chunk = await asyncio.wait_for(self.reader.read(READ_CHUNK), timeout)
                except TimeoutError:
                    log.info(
                        "closing %s connection: %s",
                        self.session.transport,
                        "stalled mid-line" if buffer else "idle",
                    )
                    return
                if not chunk:
                    return
                buffer += chunk
                continue
            if newline > MAX_LINE_BYTES:
                await self._too_large()
                return
            line = bytes(buffer[:newline]).rstrip(b"\r")
            del buffer[: newline + 1]
            if not line.strip():
                continue
            self.busy = True
            try:
                reply = await self.server.handle_line(line, self.session)
            finally:
                self.busy = False
            if reply is not None:
                await self.send(reply)

    async def _too_large(self) -> None:
        error = RpcError(
            TOO_LARGE,
            f"too large: a request line may have at most {MAX_LINE_BYTES:,} bytes; closing",
        )
        with contextlib.suppress(Exception):
            await self.send(encode(error_message(None, error)))

    def start_events(self) -> None:
        """Called from a worker thread by events.subscribe."""
        loop = self.loop
        queue: asyncio.Queue[ChangeEvent] = asyncio.Queue(MAX_QUEUED_EVENTS)
        self.events = queue

        def deliver(event: ChangeEvent) -> None:
            try:
                queue.put_nowait(event)
            except asyncio.QueueFull:
                log.warning("a subscriber is not reading its events; closing it")
                if self.task is not None:
                    self.task.cancel()

        self.unsubscribe = self.server.subscribe(deliver)
        loop.call_soon_threadsafe(self._start_sender)

    def _start_sender(self) -> None:
        self.sender = asyncio.get_running_loop().create_task(self._send_events())

    async def _send_events(self) -> None:
        assert self.events is not None
        while True:
            event = await self.events.get()
            params = {
                "id": event.memory_id,
                "project_id": event.project_id,
                "action": event.action,
                "actor": event.actor,
            }
            try:
                await self.send(encode(notification("memory.changed", params)))
            except (OSError, TimeoutError):
                if self.task is not None:
                    self.task.cancel()
                return

    async def close(self) -> None:
        if self.unsubscribe is not None:
            self.unsubscribe()
        if self.sender is not None:
            self.sender.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.sender
        self.writer.close()
        with contextlib.suppress(Exception):
            await self.writer.wait_closed()

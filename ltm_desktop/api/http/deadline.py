"""uvicorn's HTTP/1.1 protocol with a deadline for reading each request.

uvicorn waits for a request's headers and body as long as a peer keeps the connection
open, and ``limit_concurrency`` counts such half-open connections: a local program
opening 64 that never finish their headers would lock the API out. Here a request must
arrive whole (headers and body) within ``read_timeout`` seconds of the connection opening,
or of the previous answer (plus uvicorn's keep-alive wait); a peer that is late is
disconnected. The time spent answering is not limited: that is our own work.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger(__name__)
READ_TIMEOUT = 5.0  # seconds; loopback clients send a request in well under 1 ms
RECEIVED = (h11.DONE, h11.MUST_CLOSE, h11.CLOSED)  # the peer has sent the whole request


class DeadlineProtocol(H11Protocol):
    """H11Protocol that drops a peer taking longer than ``read_timeout`` to send a request."""

    read_timeout = READ_TIMEOUT  # set per server by ``with_read_timeout``

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None

    def _arm(self, seconds: float) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(seconds, self._late)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _late(self) -> None:
        self._deadline = None
        if self.conn.their_state not in RECEIVED and not self.transport.is_closing():
            log.info("HTTP: dropped %s, which did not send a whole request in time", self.client)
            self.transport.close()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm(self.read_timeout)

    def handle_events(self) -> None:
        super().handle_events()
        if self.conn.their_state in RECEIVED:
            self._disarm()

    def on_response_complete(self) -> None:
        # Armed first: the base class may go on to a pipelined request, which disarms it.
        self._arm(self.timeout_keep_alive + self.read_timeout)
        super().on_response_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def shutdown(self) -> None:
        """At stop, a peer still sending its request is dropped rather than waited for."""
        if self.cycle is not None and self.conn.their_state not in RECEIVED:
            self.transport.close()
        else:
            super().shutdown()


def with_read_timeout(seconds: float) -> type[DeadlineProtocol]:
    """The protocol class for a server whose peers get ``seconds`` to send a request."""
    return type("DeadlineProtocol", (DeadlineProtocol,), {"read_timeout": seconds})

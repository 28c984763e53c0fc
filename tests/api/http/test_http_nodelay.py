"""Answers on a kept-alive HTTP connection go out at once (no Nagle delay).

asyncio turns Nagle's algorithm off (``TCP_NODELAY``) only on accepted sockets whose
``proto`` is IPPROTO_TCP; a listener from ``socket.create_server`` has 0, so each answer
on a kept-alive connection waited for the client's delayed ACK (43 ms a request).
"""

from __future__ import annotations

import asyncio
import socket

from ltm_desktop.api.http.server import listening_socket


def nodelay_of_accepted(listener: socket.socket) -> int:
    """TCP_NODELAY as asyncio leaves it on a connection accepted from ``listener``."""
    seen: list[int] = []

    async def main() -> None:
        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            accepted: socket.socket = writer.get_extra_info("socket")
            seen.append(accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            writer.close()

        server = await asyncio.start_server(handle, sock=listener)
        host, port = listener.getsockname()[:2]
        _, writer = await asyncio.open_connection(host, port)
        async with server:
            while not seen:
                await asyncio.sleep(0)  # yield to the handler until it has looked
        writer.close()

    asyncio.run(main())
    return seen[0]


def test_the_http_listener_gets_nagle_turned_off_on_each_connection() -> None:
    listener = listening_socket("127.0.0.1", 0, socket.AF_INET)
    assert nodelay_of_accepted(listener) != 0


def test_a_listener_from_create_server_does_not_which_is_why() -> None:
    """The mechanism the fix relies on: if asyncio ever sets it anyway, this says so."""
    listener = socket.create_server(("127.0.0.1", 0))
    assert nodelay_of_accepted(listener) == 0

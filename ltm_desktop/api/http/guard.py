"""Who may talk to the HTTP API: this machine's clients holding this start's token.

Two ASGI middlewares. ``LoopbackGuard`` refuses a ``Host`` that is not the loopback
address and port we listen on (a DNS-rebinding page sends its own name) and a browser
``Origin`` not explicitly allowed; ``BearerAuth`` refuses a missing or wrong token. The
statuses follow the MCP SDK's transport security: 421 for the host, 403 for the origin.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from ltm_desktop.api.http.answers import error_response


def loopback_hosts(host: str, port: int) -> frozenset[str]:
    """The ``Host`` values a loopback client sends for our address (``localhost`` too)."""
    shown = f"[{host}]" if ":" in host else host
    names = {shown, "localhost"}
    if host == "127.0.0.1":
        names.add("127.0.0.1")
    return frozenset(f"{name}:{port}" for name in names)


class LoopbackGuard:
    """Refuses a foreign ``Host`` (421) and a browser ``Origin`` not allowed (403)."""

    def __init__(self, app: ASGIApp, hosts: Iterable[str], origins: Iterable[str]) -> None:
        self.app = app
        self.hosts = frozenset(h.lower() for h in hosts)
        self.origins = frozenset(origins)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        host = headers.get("host", "")
        origin = headers.get("origin")
        if host.lower() not in self.hosts:
            expected = " or ".join(sorted(self.hosts))
            response = error_response(
                421, "forbidden_host", f"the Host header must be {expected}, not {host[:100]!r}"
            )
        elif origin is not None and origin not in self.origins:
            response = error_response(
                403,
                "forbidden_origin",
                f"the origin {origin[:100]!r} is not allowed ([http] allowed_origins)",
            )
        else:
            await self.app(scope, receive, send)
            return
        await response(scope, receive, send)


class BearerAuth:
    """Refuses a request without ``Authorization: Bearer <this start's token>`` (401)."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = Headers(scope=scope).get("authorization")
        if given is not None and hmac.compare_digest(given.encode(), self.expected):
            await self.app(scope, receive, send)
            return
        detail = "a bearer token is required" if given is None else "the token is wrong"
        response = error_response(
            401,
            "unauthorized",
            f"{detail}: send Authorization: Bearer <the token in the http-PORT.token file>",
            **{"WWW-Authenticate": "Bearer"},
        )
        await response(scope, receive, send)

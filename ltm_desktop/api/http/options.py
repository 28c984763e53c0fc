"""Where the HTTP API listens and whom it lets in, from ``--http`` or ``[http]``.

Light on purpose: ``serve`` reads these before it knows whether it needs Starlette.
"""

from __future__ import annotations

from dataclasses import dataclass

from ltm_desktop.api import runtime
from ltm_desktop.api.runtime import EndpointError
from ltm_desktop.core.settings.config import Settings


@dataclass(frozen=True, slots=True)
class HttpOptions:
    address: tuple[str, int]  # loopback host and port (0: any free one)
    allowed_origins: tuple[str, ...] = ()  # browser origins allowed to call the API
    max_connections: int = 64  # beyond this uvicorn answers 503
    read_timeout: float = 5.0  # seconds a peer has to send a whole request
    workers: int = 4  # threads calling the service, as many as the socket API's


def parse_listen(value: str) -> tuple[str, int]:
    """``127.0.0.1:PORT`` or ``[::1]:PORT``; any other address is refused."""
    try:
        return runtime.parse_tcp(value)
    except EndpointError as exc:
        raise EndpointError(f"cannot serve HTTP on {value.strip()!r}: {exc}") from None


def http_options(listen: str | None, settings: Settings) -> HttpOptions | None:
    """The options for ``--http`` (else ``[http] listen``), or None: no HTTP API."""
    chosen = listen if listen is not None else settings.http_listen
    if not chosen.strip():
        return None
    origins = tuple(settings.http_allowed_origins.split())
    return HttpOptions(parse_listen(chosen), origins)

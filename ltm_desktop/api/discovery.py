"""Which endpoint a client uses: the socket or TCP address, and the TCP token.

Apart from the client so that a hook can see there is no server (no socket file)
without importing the client and its socket machinery.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from ltm_desktop.api import runtime

ENV_TOKEN = "LTM_DESKTOP_TOKEN"


def discover(
    socket_path: str | os.PathLike[str] | None = None, tcp: str | None = None
) -> tuple[Path | None, tuple[str, int] | None, str | None]:
    """(socket path, tcp address, token) to use, in order of precedence."""
    if socket_path:
        return Path(socket_path), None, None
    if tcp:
        address = runtime.parse_tcp(tcp)
        return None, address, _token_for(address)
    if os.environ.get(runtime.ENV_SOCKET):
        return Path(os.environ[runtime.ENV_SOCKET]), None, None
    if os.environ.get(runtime.ENV_TCP):
        address = runtime.parse_tcp(os.environ[runtime.ENV_TCP])
        return None, address, _token_for(address)
    published = runtime.read_endpoint_file()
    if published:
        if isinstance(published.get("socket"), str):
            return Path(published["socket"]), None, None
        if isinstance(published.get("tcp"), str):
            address = runtime.parse_tcp(published["tcp"])
            return None, address, _token_for(address)
    return runtime.runtime_dir() / runtime.SOCKET_NAME, None, None


def _token_for(address: tuple[str, int]) -> str | None:
    if os.environ.get(ENV_TOKEN):
        return os.environ[ENV_TOKEN]
    with contextlib.suppress(OSError, runtime.EndpointError):
        return (runtime.runtime_dir() / f"tcp-{address[1]}.token").read_text().strip()
    return None

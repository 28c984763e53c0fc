"""``ltm-desktop serve``: the API server in the foreground until SIGINT/SIGTERM.

An entry point (like cli.py), so it may compose the store, the service and the server.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Callable, Sequence
from pathlib import Path

from ltm_desktop import __version__
from ltm_desktop.api import runtime
from ltm_desktop.api.server import ApiServer, ServerOptions
from ltm_desktop.app import open_service
from ltm_desktop.core.paths import resolve_data_dir


def default_data_dir() -> Path:
    """The data dir used when neither --data-dir nor the environment says otherwise."""
    saved = os.environ.pop("LTM_DESKTOP_DATA_DIR", None)
    try:
        return resolve_data_dir()
    finally:
        if saved is not None:
            os.environ["LTM_DESKTOP_DATA_DIR"] = saved


def socket_for(data_dir: str | os.PathLike[str] | None, explicit: str | None = None) -> Path:
    """--socket, else $LTM_DESKTOP_SOCKET, else the runtime dir's socket for this data dir."""
    if explicit:
        return Path(explicit).expanduser().absolute()
    if os.environ.get(runtime.ENV_SOCKET):
        return Path(os.environ[runtime.ENV_SOCKET]).expanduser().absolute()
    return runtime.default_socket_path(resolve_data_dir(data_dir), default_data_dir())


def server_options(data_dir: Path, socket: str | None, tcp: str | None) -> ServerOptions:
    path = socket_for(data_dir, socket)
    tcp = tcp or os.environ.get(runtime.ENV_TCP) or None
    is_default = not socket and not os.environ.get(runtime.ENV_SOCKET)
    publish = is_default and data_dir.resolve() == default_data_dir().resolve()
    return ServerOptions(
        socket_path=path,
        tcp=runtime.parse_tcp(tcp) if tcp else None,
        publish_endpoint=publish,
    )


def serve(
    data_dir: str | None,
    config: str | None,
    socket: str | None,
    tcp: str | None,
    *,
    warn: Callable[[Sequence[str]], None],
) -> int:
    """Run until a signal; returns the process exit code. Raises LtmError on startup failure."""
    opened = open_service(data_dir, config)
    warn(opened.warnings)
    service = opened.service
    try:
        options = server_options(service.paths.data_dir, socket, tcp)
        server = ApiServer(service, service.paths.data_dir, options)
        asyncio.run(_run(server))
    finally:
        service.close()
    return 0


async def _run(server: ApiServer) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    endpoint = await server.start()
    print(
        f"ltm-desktop {__version__} serving {server.data_dir} on {endpoint.describe()}",
        flush=True,
    )
    await stop.wait()
    await server.stop()

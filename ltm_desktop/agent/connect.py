"""Choosing the access: the server that serves the data dir if one runs, else the database.

The socket is found as ``ltm-desktop call`` finds it ($LTM_DESKTOP_SOCKET or
$LTM_DESKTOP_TCP, else the data dir's own socket, else the endpoint the default data
dir's server published). A server is used only if its ``health`` names this data dir's
database: a server of another data dir is never written to by mistake.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from ltm_desktop.agent.access import MemoryAccess, Unavailable
from ltm_desktop.core.errors import LtmError
from ltm_desktop.core.settings.paths import DataPaths, resolve_data_dir

log = logging.getLogger(__name__)
CONNECT_TIMEOUT = 1.0


def find_server(
    data_dir: Path, client: str, *, timeout: float = 30.0, location: str | None = None
) -> MemoryAccess | None:
    """A socket access to the server of ``data_dir``, or None when none serves it.

    ``timeout``: how long each call may wait for the server's answer. ``location``: the
    store this process would open (``Launch.store_location``; None: the data dir's SQLite
    file); a server of the same data dir on another store is not used.
    """
    from ltm_desktop.api.discovery import discover

    try:  # no socket file: no server, and the client is not even imported
        socket_path = _chosen_socket(data_dir)
        endpoint = discover(socket_path)[0]
    except LtmError as exc:  # an unusable endpoint setting
        log.info("no server for %s: %s", data_dir, exc)
        return None
    if endpoint is not None and not endpoint.exists():
        log.info("no server for %s: no socket at %s", data_dir, endpoint)
        return None
    from ltm_desktop.agent.socket_access import SocketAccess
    from ltm_desktop.api.client import ApiError, Client

    try:
        api = Client(
            socket_path, client_name=client, timeout=timeout, connect_timeout=CONNECT_TIMEOUT
        )
        health = api.health()
    except (ApiError, LtmError) as exc:  # no server, or an unusable endpoint setting
        log.info("no server for %s: %s", data_dir, exc)
        return None
    served = str(health.get("db_path", ""))
    if not same_store(served, location or str(DataPaths(data_dir).db_path)):
        log.warning(
            "the server at %s serves %s, not %s; opening it here", api.endpoint, served, data_dir
        )
        api.close()
        return None
    return SocketAccess(api)


def same_store(served: str, expected: str) -> bool:
    """Whether a server's ``db_path`` (its store's location) is the store expected: the
    same SQLite file, or the same redacted PostgreSQL URL."""
    if served == expected:
        return True
    if not (os.path.isabs(served) and os.path.isabs(expected)):
        return False  # a PostgreSQL location against a file, or two different servers
    return Path(served).resolve() == Path(expected).resolve()


def _chosen_socket(data_dir: Path) -> Path | None:
    """The data dir's own socket, unless an endpoint is chosen (None: discover one)."""
    from ltm_desktop.api import runtime

    if os.environ.get(runtime.ENV_SOCKET) or os.environ.get(runtime.ENV_TCP):
        return None
    if data_dir.resolve() != runtime.default_data_dir().resolve():
        return runtime.socket_for(data_dir)
    return None


def server_socket(data_dir: Path) -> Path | None:
    """The Unix socket the server of ``data_dir`` would listen on, found as ``find_server``
    finds it (None: the endpoint is TCP or unusable). Nothing is connected to."""
    from ltm_desktop.api.discovery import discover

    try:
        return discover(_chosen_socket(data_dir))[0]
    except LtmError:
        return None


def open_access(
    data_dir: str | os.PathLike[str] | None, config: str | os.PathLike[str] | None, client: str
) -> MemoryAccess:
    """The server's socket when one serves the data dir's store, else the store opened
    here (the database URL from the environment or the config file: ``mcp`` hands its
    ``--database-url`` down as the variable).

    Raises:
        Unavailable: the settings name no usable store, or it cannot be opened.
    """
    from ltm_desktop.agent.direct_access import DirectAccess
    from ltm_desktop.core.settings.launch import resolve_launch
    from ltm_desktop.launching import AGENT_CONNECT_TIMEOUT_S, open_launch

    try:
        launch = resolve_launch(resolve_data_dir(data_dir), config)
    except LtmError as exc:  # a bad database URL
        raise Unavailable(str(exc)) from exc
    found = find_server(launch.data_dir, client, location=launch.store_location)
    if found is not None:
        return found
    try:
        # agents wait little; a PostgreSQL server that cannot be reached queues their writes
        opened = open_launch(launch, connect_timeout_s=AGENT_CONNECT_TIMEOUT_S, offline=True)
    except LtmError as exc:
        raise Unavailable(str(exc)) from exc
    for warning in opened.warnings:
        log.warning("%s", warning)
    return DirectAccess(opened.service, client)

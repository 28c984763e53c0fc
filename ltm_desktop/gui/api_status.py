"""What the GUI needs to know about the agent API, without depending on its implementation."""

from __future__ import annotations

from typing import Protocol, runtime_checkable


class ApiStatus(Protocol):
    """Cheap, in-memory facts about the agent API server (polled once a second).

    Attributes:
        endpoint: where agents connect, e.g. ``unix:/run/user/1000/ltm-desktop/ltm.sock``;
            None while the server is not serving.
        error: why the server could not start (e.g. another instance serves this data
            dir); None when it runs.
    """

    @property
    def endpoint(self) -> str | None: ...

    @property
    def error(self) -> str | None: ...

    def connected_clients(self) -> int: ...

    def last_action(self) -> str | None: ...


@runtime_checkable
class RestartableApi(Protocol):
    """An API server the window can start again ("Retry") and that says whether another
    server holds its data dir (then the window takes the API over once that one stops)."""

    @property
    def other_server(self) -> bool: ...

    def restart(self) -> bool: ...


@runtime_checkable
class ServesHttp(Protocol):
    """An API that also serves the HTTP API (``[http] listen``): where, e.g.
    ``http:127.0.0.1:8765`` (None: not served). With port 0 the status bar is the only
    place a person sees which port was picked."""

    @property
    def http_endpoint(self) -> str | None: ...


def socket_path(endpoint: str | None) -> str | None:
    """The filesystem path of a ``unix:`` endpoint (what socat needs), else None."""
    if endpoint and endpoint.startswith("unix:"):
        return endpoint[len("unix:") :]
    return None

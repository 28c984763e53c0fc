"""A small synchronous client for the ltm-desktop agent API.

    from ltm_desktop.api.client import Client

    with Client(client_name="my-agent") as client:
        client.memory_add("Tests run with `make test`", cwd="/home/me/src/app")
        hits = client.memory_search("how do I run the tests?", cwd="/home/me/src/app")

The endpoint is found without configuration (``$LTM_DESKTOP_SOCKET``,
``$LTM_DESKTOP_TCP``, the running app's endpoint file, the default socket).
Errors arrive as typed exceptions (``NotFoundError``, ``InvalidParams``...).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import socket
from collections import deque
from pathlib import Path
from types import TracebackType
from typing import Any

from ltm_desktop.api import peercred, protocol, runtime
from ltm_desktop.api.calls import ApiCalls
from ltm_desktop.api.client_errors import (
    ApiError,
    BackendNotImplementedError,
    Busy,
    ConflictError,
    ConnectionFailed,
    Disabled,
    InternalError,
    InvalidParams,
    InvalidRequest,
    MethodNotFound,
    NotFoundError,
    ParseError,
    TooLarge,
    Unauthorized,
    UntrustedServer,
    error_from,
)
from ltm_desktop.api.discovery import ENV_TOKEN, discover
from ltm_desktop.core.errors import UnsafePath

__all__ = [  # the errors are defined in api.client_errors; callers import them from here
    "ApiError",
    "BackendNotImplementedError",
    "Busy",
    "Client",
    "SocketConnection",
    "ConflictError",
    "ConnectionFailed",
    "Disabled",
    "InternalError",
    "InvalidParams",
    "InvalidRequest",
    "MethodNotFound",
    "NotFoundError",
    "ParseError",
    "TooLarge",
    "Unauthorized",
    "UntrustedServer",
    "ENV_TOKEN",
    "discover",
    "error_from",
]


class SocketConnection:
    """One connection to the server, the transport of ``Client``'s calls: says ``auth``
    (TCP) and ``hello`` when it connects, and reconnects when the server closed an idle one."""

    def __init__(
        self,
        socket_path: str | os.PathLike[str] | None = None,
        *,
        tcp: str | None = None,
        token: str | None = None,
        client_name: str = "python-client",
        timeout: float = 30.0,
        connect_timeout: float = 5.0,
    ) -> None:
        self._socket_path, self._tcp, found_token = discover(socket_path, tcp)
        self._token = token or found_token
        self.client_name = client_name
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self.sock: socket.socket | None = None
        self._buffer = b""
        self._ids = itertools.count(1)
        self.notifications: deque[dict[str, Any]] = deque()
        self._subscribed = False

    @property
    def endpoint(self) -> str:
        if self._socket_path is not None:
            return f"unix:{self._socket_path}"
        assert self._tcp is not None
        return f"tcp:{self._tcp[0]}:{self._tcp[1]}"

    # -- connection -------------------------------------------------------

    def connect(self) -> None:
        self.close()
        sock = self._open_unix(self._socket_path) if self._socket_path is not None else None
        try:
            if sock is None:
                assert self._tcp is not None
                sock = socket.create_connection(self._tcp, timeout=self.connect_timeout)
        except OSError as exc:
            raise self._unreachable(exc) from exc
        sock.settimeout(self.timeout)
        self.sock = sock
        self._buffer = b""
        try:
            if self._tcp is not None:
                if not self._token:
                    raise Unauthorized(f"no token for {self.endpoint}; set ${ENV_TOKEN}")
                self._request("auth", {"token": self._token})
            self._request("hello", {"client": self.client_name})
            if self._subscribed:
                self._request("events.subscribe", {})
        except BaseException:
            self.close()  # a failed handshake leaves no socket behind (``with`` never exits)
            raise

    def _unreachable(self, exc: OSError) -> ConnectionFailed:
        return ConnectionFailed(
            f"cannot reach the ltm-desktop server at {self.endpoint} ({exc.strerror or exc}); "
            "is `ltm-desktop` or `ltm-desktop serve` running?"
        )

    def _open_unix(self, path: Path) -> socket.socket:
        """A connection to the server at ``path``, once it is known to run as us."""
        if path.parent.is_dir():  # else connecting fails with the usual "cannot reach"
            try:
                runtime.check_socket_dir(path)
            except UnsafePath as exc:
                raise UntrustedServer(
                    f"refusing to use {self.endpoint}, nothing was sent: {exc}"
                ) from None
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.settimeout(self.connect_timeout)
            sock.connect(str(path))
            uid = peercred.server_uid(sock, path)
        except OSError as exc:
            sock.close()
            raise self._unreachable(exc) from exc
        if uid is not None and uid != os.getuid():
            sock.close()
            raise UntrustedServer(
                f"refusing to talk to the server at {self.endpoint}, nothing was sent: it "
                f"runs as another user (uid {uid}), not as you (uid {os.getuid()}), and may "
                "be impersonating ltm-desktop; use a socket in a directory only you can write to"
            )
        return sock

    def close(self) -> None:
        if self.sock is not None:
            with contextlib.suppress(OSError):
                self.sock.close()
            self.sock = None

    def _closed_by_peer(self) -> bool:
        assert self.sock is not None
        self.sock.setblocking(False)  # a socket timeout would make even MSG_PEEK wait
        try:
            data = self.sock.recv(1, socket.MSG_PEEK)
        except (BlockingIOError, InterruptedError):
            return False
        except OSError:
            return True
        finally:
            self.sock.settimeout(self.timeout)
        return data == b""

    def _read_message(self) -> dict[str, Any] | list[Any]:
        assert self.sock is not None
        while b"\n" not in self._buffer:
            try:
                chunk = self.sock.recv(65536)
            except TimeoutError as exc:
                raise ConnectionFailed(
                    f"no answer from {self.endpoint} within {self.timeout} s"
                ) from exc
            except OSError as exc:
                raise ConnectionFailed(f"connection to {self.endpoint} broke: {exc}") from exc
            if not chunk:
                raise ConnectionFailed(f"the server at {self.endpoint} closed the connection")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        message = json.loads(line)
        if not isinstance(message, dict | list):
            raise ApiError(f"unexpected answer from the server: {line[:200]!r}")
        return message

    def _request(self, method: str, params: dict[str, Any]) -> Any:
        assert self.sock is not None
        request_id = next(self._ids)
        line = protocol.encode(
            {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        )
        try:
            self.sock.sendall(line)
        except OSError as exc:
            raise ConnectionFailed(f"cannot send to {self.endpoint}: {exc}") from exc
        while True:
            message = self._read_message()
            if isinstance(message, dict) and "method" in message and "id" not in message:
                self.notifications.append(message)
                continue
            if not isinstance(message, dict) or message.get("id") != request_id:
                if isinstance(message, dict) and "error" in message and message.get("id") is None:
                    raise error_from(message["error"])
                raise ApiError(f"answer does not match request {request_id}: {str(message)[:200]}")
            if "error" in message:
                raise error_from(message["error"])
            return message.get("result")

    def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        """Call ``method``; reconnects first if the server dropped an idle connection."""
        if self.sock is None or self._closed_by_peer():
            self.connect()
        try:
            return self._request(method, params or {})
        except ConnectionFailed:
            self.close()
            raise

    # -- events -----------------------------------------------------------

    def events_subscribe(self) -> Any:
        result = self.call("events.subscribe")
        self._subscribed = True
        return result

    def next_event(self, timeout: float | None = None) -> dict[str, Any] | None:
        """The next ``memory.changed`` notification, or None after ``timeout`` seconds."""
        if self.notifications:
            return self.notifications.popleft()
        if self.sock is None:
            self.connect()
        assert self.sock is not None
        self.sock.settimeout(timeout)
        try:
            message = self._read_message()
        except ConnectionFailed as exc:
            if isinstance(exc.__cause__, TimeoutError):
                return None
            raise
        finally:
            if self.sock is not None:
                self.sock.settimeout(self.timeout)
        return message if isinstance(message, dict) else None


class Client(ApiCalls):
    """The API's typed calls (``api.calls``) over one ``SocketConnection``.

    Use one per thread; ``with Client() as client:`` closes the connection at the end.
    """

    def __init__(
        self,
        socket_path: str | os.PathLike[str] | None = None,
        *,
        tcp: str | None = None,
        token: str | None = None,
        client_name: str = "python-client",
        timeout: float = 30.0,
        connect_timeout: float = 5.0,
    ) -> None:
        self.connection = SocketConnection(
            socket_path,
            tcp=tcp,
            token=token,
            client_name=client_name,
            timeout=timeout,
            connect_timeout=connect_timeout,
        )
        super().__init__(self.connection)

    @property
    def endpoint(self) -> str:
        return self.connection.endpoint

    @property
    def client_name(self) -> str:
        """Sent in ``hello``: a new name is used from the next connection on."""
        return self.connection.client_name

    @client_name.setter
    def client_name(self, name: str) -> None:
        self.connection.client_name = name

    @property
    def timeout(self) -> float:
        return self.connection.timeout

    @timeout.setter
    def timeout(self, seconds: float) -> None:
        self.connection.timeout = seconds

    @property
    def connect_timeout(self) -> float:
        return self.connection.connect_timeout

    @connect_timeout.setter
    def connect_timeout(self, seconds: float) -> None:
        self.connection.connect_timeout = seconds

    @property
    def notifications(self) -> deque[dict[str, Any]]:
        """Notifications read while waiting for a response; ``next_event`` returns them first."""
        return self.connection.notifications

    @property
    def _sock(self) -> socket.socket | None:
        return self.connection.sock

    def connect(self) -> None:
        self.connection.connect()

    def close(self) -> None:
        self.connection.close()

    def events_subscribe(self) -> Any:
        return self.connection.events_subscribe()

    def next_event(self, timeout: float | None = None) -> dict[str, Any] | None:
        """The next ``memory.changed`` notification, or None after ``timeout`` seconds."""
        return self.connection.next_event(timeout)

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

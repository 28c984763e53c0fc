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
from typing import Any, cast

from ltm_desktop.api import peercred, protocol, runtime
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
from ltm_desktop.api.inbox_client import InboxCalls
from ltm_desktop.api.shapes import (
    AddResultShape,
    AuditEventShape,
    HealthShape,
    MemoryPageShape,
    MemoryShape,
    ObservationShape,
    PrecisShape,
    ProjectShape,
    RecallHitShape,
    SearchHitShape,
    StatsShape,
)
from ltm_desktop.core.errors import UnsafePath

ENV_TOKEN = "LTM_DESKTOP_TOKEN"
__all__ = [  # the errors are defined in api.client_errors; callers import them from here
    "ApiError",
    "BackendNotImplementedError",
    "Busy",
    "Client",
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
    "discover",
    "error_from",
]


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


def _drop_none(**params: Any) -> dict[str, Any]:
    return {k: v for k, v in params.items() if v is not None}


class Client(InboxCalls):
    """One connection to the server; reconnects when the server closed an idle one."""

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
        self._sock: socket.socket | None = None
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
        self._sock = sock
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
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._sock.close()
            self._sock = None

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _closed_by_peer(self) -> bool:
        assert self._sock is not None
        self._sock.setblocking(False)  # a socket timeout would make even MSG_PEEK wait
        try:
            data = self._sock.recv(1, socket.MSG_PEEK)
        except (BlockingIOError, InterruptedError):
            return False
        except OSError:
            return True
        finally:
            self._sock.settimeout(self.timeout)
        return data == b""

    def _read_message(self) -> dict[str, Any] | list[Any]:
        assert self._sock is not None
        while b"\n" not in self._buffer:
            try:
                chunk = self._sock.recv(65536)
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
        assert self._sock is not None
        request_id = next(self._ids)
        line = protocol.encode(
            {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        )
        try:
            self._sock.sendall(line)
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
        if self._sock is None or self._closed_by_peer():
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
        if self._sock is None:
            self.connect()
        assert self._sock is not None
        self._sock.settimeout(timeout)
        try:
            message = self._read_message()
        except ConnectionFailed as exc:
            if isinstance(exc.__cause__, TimeoutError):
                return None
            raise
        finally:
            if self._sock is not None:
                self._sock.settimeout(self.timeout)
        return message if isinstance(message, dict) else None

    # -- methods ----------------------------------------------------------

    def health(self) -> HealthShape:
        return cast(HealthShape, self.call("health"))

    def project_resolve(self, cwd: str) -> ProjectShape:
        return cast(ProjectShape, self.call("project.resolve", {"cwd": cwd}))

    def project_list(self) -> list[ProjectShape]:
        return cast(list[ProjectShape], self.call("project.list")["projects"])

    def memory_add(
        self,
        content: str,
        *,
        cwd: str | None = None,
        project_id: str | None = None,
        title: str | None = None,
        category: str | None = None,
        importance: int | None = None,
        tags: list[str] | None = None,
        ttl_days: int | None = None,
        files: list[str] | None = None,
    ) -> AddResultShape:
        return cast(
            AddResultShape,
            self.call(
                "memory.add",
                _drop_none(
                    cwd=cwd,
                    project_id=project_id,
                    content=content,
                    title=title,
                    category=category,
                    importance=importance,
                    tags=tags,
                    ttl_days=ttl_days,
                    files=files,
                ),
            ),
        )

    def memory_get(self, memory_id: str) -> MemoryShape:
        return cast(MemoryShape, self.call("memory.get", {"id": memory_id})["memory"])

    def memory_update(
        self, memory_id: str, *, expected_updated_at: str | None = None, **fields: Any
    ) -> MemoryShape:
        """Edit ``fields``; with ``expected_updated_at`` (the ``updated_at`` you read), a
        ConflictError instead if someone changed the memory since (``.current`` is theirs)."""
        params = _drop_none(id=memory_id, expected_updated_at=expected_updated_at)
        return cast(MemoryShape, self.call("memory.update", {**params, **fields})["memory"])

    def memory_remove(
        self, memory_id: str, *, expected_updated_at: str | None = None
    ) -> MemoryShape:
        params = _drop_none(id=memory_id, expected_updated_at=expected_updated_at)
        return cast(MemoryShape, self.call("memory.remove", params)["memory"])

    def memory_restore(
        self, memory_id: str, *, expected_updated_at: str | None = None
    ) -> MemoryShape:
        params = _drop_none(id=memory_id, expected_updated_at=expected_updated_at)
        return cast(MemoryShape, self.call("memory.restore", params)["memory"])

    def memory_search(
        self,
        query: str,
        *,
        cwd: str | None = None,
        project_id: str | None = None,
        limit: int | None = None,
        include_global: bool | None = None,
    ) -> list[SearchHitShape]:
        return cast(
            list[SearchHitShape],
            self.call(
                "memory.search",
                _drop_none(
                    cwd=cwd,
                    project_id=project_id,
                    query=query,
                    limit=limit,
                    include_global=include_global,
                ),
            )["hits"],
        )

    def memory_list(
        self,
        *,
        cwd: str | None = None,
        project_id: str | None = None,
        limit: int | None = None,
        offset: int | None = None,
        category: str | None = None,
        include_disabled: bool | None = None,
    ) -> MemoryPageShape:
        return cast(
            MemoryPageShape,
            self.call(
                "memory.list",
                _drop_none(
                    cwd=cwd,
                    project_id=project_id,
                    limit=limit,
                    offset=offset,
                    category=category,
                    include_disabled=include_disabled,
                ),
            ),
        )

    def memory_history(self, memory_id: str) -> list[AuditEventShape]:
        return cast(list[AuditEventShape], self.call("memory.history", {"id": memory_id})["events"])

    def memory_stale(
        self, *, cwd: str | None = None, project_id: str | None = None
    ) -> list[MemoryShape]:
        result = self.call("memory.stale", _drop_none(cwd=cwd, project_id=project_id))
        return cast(list[MemoryShape], result["memories"])

    def memory_purge_expired(self, *, cwd: str | None = None, project_id: str | None = None) -> int:
        return int(
            self.call("memory.purge_expired", _drop_none(cwd=cwd, project_id=project_id))["purged"]
        )

    def recall(
        self,
        query: str,
        *,
        cwd: str | None = None,
        project_id: str | None = None,
        kinds: list[str] | None = None,
        limit: int | None = None,
        include_global: bool | None = None,
    ) -> list[RecallHitShape]:
        return cast(
            list[RecallHitShape],
            self.call(
                "recall",
                _drop_none(
                    cwd=cwd,
                    project_id=project_id,
                    query=query,
                    kinds=kinds,
                    limit=limit,
                    include_global=include_global,
                ),
            )["hits"],
        )

    def observe(
        self,
        kind: str,
        session_id: str,
        *,
        cwd: str | None = None,
        project_id: str | None = None,
        user_text: str | None = None,
        assistant_text: str | None = None,
        messages_text: str | None = None,
    ) -> ObservationShape | None:
        """The recorded observation; None when the config turns this kind off."""
        return cast(
            ObservationShape | None,
            self.call(
                "observe",
                _drop_none(
                    cwd=cwd,
                    project_id=project_id,
                    kind=kind,
                    session_id=session_id,
                    user_text=user_text,
                    assistant_text=assistant_text,
                    messages_text=messages_text,
                ),
            )["observation"],
        )

    def precis_get(
        self,
        *,
        cwd: str | None = None,
        project_id: str | None = None,
        include_global: bool | None = None,
    ) -> PrecisShape:
        return cast(
            PrecisShape,
            self.call(
                "precis.get",
                _drop_none(cwd=cwd, project_id=project_id, include_global=include_global),
            ),
        )

    def prompt_section(
        self,
        *,
        cwd: str | None = None,
        project_id: str | None = None,
        include_global: bool | None = None,
    ) -> str:
        result = self.call(
            "prompt.section",
            _drop_none(cwd=cwd, project_id=project_id, include_global=include_global),
        )
        return str(result["text"])

    def stats(self, *, cwd: str | None = None, project_id: str | None = None) -> StatsShape:
        return cast(StatsShape, self.call("stats", _drop_none(cwd=cwd, project_id=project_id)))

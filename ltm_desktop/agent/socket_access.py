"""Memory access through the running app's (or ``serve``'s) socket.

The connection names itself with the agent's client name, so the window shows its
writes live and the audit history records who made them.
"""

from __future__ import annotations

import threading
from typing import Any

from ltm_desktop.agent.access import AccessError, Unavailable
from ltm_desktop.api.client import ApiError, Busy, Client, ConnectionFailed, InternalError
from ltm_desktop.api.client_errors import Disabled
from ltm_desktop.core import rules
from ltm_desktop.core.errors import MemoryDisabled


class SocketAccess:
    """One client connection, shared by the tool calls (one request at a time)."""

    def __init__(self, client: Client) -> None:
        self._client = client
        self._lock = threading.Lock()

    def describe(self) -> str:
        return f"server at {self._client.endpoint}"

    def set_client(self, name: str) -> None:
        name = rules.check_actor(name)
        with self._lock:
            if name != self._client.client_name:
                self._client.client_name = name
                self._client.close()  # the next call says hello with the new name

    def call(self, method: str, params: dict[str, Any]) -> Any:
        with self._lock:
            try:
                return self._client.call(method, params)
            except (ConnectionFailed, InternalError, Busy) as exc:
                raise Unavailable(AccessError(exc.code, str(exc)).args[0]) from None
            except Disabled as exc:
                raise MemoryDisabled(str(exc).removeprefix("disabled: ")) from None
            except ApiError as exc:
                data = exc.data if isinstance(exc.data, dict) else {}
                raise AccessError(exc.code, str(exc), data.get("param")) from None

    def close(self) -> None:
        with self._lock:
            self._client.close()

"""What the tools and hooks run against: the API's typed calls over a memory access.

The tools and hooks call typed methods (``memory_add``, ``memory_search``, ``recall``...)
of ``ApiCalls`` (``api.calls``, the method set the Python client has too) and read the
typed shapes of ``api.shapes``. Underneath, a ``MemoryAccess`` carries each call by
method name, two ways that answer identically: over the running app's (or ``serve``'s)
socket, so the window shows an agent's writes live, and in-process on the same request
dispatcher the server uses, when no server serves the data dir. Both raise only the
errors below (or ``MemoryDisabled``), so the tools never see which one they talk to.
"""

from __future__ import annotations

from typing import Any, Protocol

from ltm_desktop.core.errors import LtmError

# API prefixes ("invalid params: ...") that say what the error code already says.
_PREFIXES = (
    "invalid params: ",
    "not found: ",
    "conflict: ",
    "internal error: ",
    "not implemented: ",
)


class AccessError(LtmError):
    """The API refused a call (bad params, unknown id, conflict): the caller's to fix.

    Attributes:
        code: the JSON-RPC error code (``ltm_desktop.api.protocol``).
        param: the parameter at fault, when the API named one.
    """

    def __init__(self, code: int, message: str, param: str | None = None) -> None:
        for prefix in _PREFIXES:
            message = message.removeprefix(prefix)
        super().__init__(message)
        self.code = code
        self.param = param


class Unavailable(LtmError):
    """The memory cannot be reached or used right now (no server, broken database)."""


class MemoryAccess(Protocol):
    """Carries API calls (``docs/protocol.md``) on behalf of one named client: the
    transport of ``ApiCalls(access)``, and its lifetime."""

    def describe(self) -> str:
        """Where the memory lives, for logs: a socket endpoint or a database path."""
        ...

    def set_client(self, name: str) -> None:
        """Name the client: the actor recorded for its writes from now on."""
        ...

    def call(self, method: str, params: dict[str, Any]) -> Any:
        """The method's result; raises AccessError, Unavailable or MemoryDisabled."""
        ...

    def close(self) -> None: ...

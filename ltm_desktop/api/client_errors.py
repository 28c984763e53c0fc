"""The Python client's errors: one class per JSON-RPC error code (docs/protocol.md §12)."""

from __future__ import annotations

from typing import Any

from ltm_desktop.api import protocol
from ltm_desktop.core.errors import LtmError


class ApiError(LtmError):
    """An error answer from the server (or a failure to reach it)."""

    code = 0

    def __init__(self, message: str, code: int | None = None, data: Any = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        self.data = data


class ConnectionFailed(ApiError):
    """The server could not be reached, or the connection broke mid-request."""


class UntrustedServer(ConnectionFailed):
    """The socket may belong to someone else (another user's server, or a directory others
    can write to); nothing was sent to it."""


class ParseError(ApiError):
    code = protocol.PARSE_ERROR


class InvalidRequest(ApiError):
    code = protocol.INVALID_REQUEST


class MethodNotFound(ApiError):
    code = protocol.METHOD_NOT_FOUND


class InvalidParams(ApiError):
    code = protocol.INVALID_PARAMS


class InternalError(ApiError):
    code = protocol.INTERNAL_ERROR


class NotFoundError(ApiError):
    code = protocol.NOT_FOUND


class Unauthorized(ApiError):
    code = protocol.UNAUTHORIZED


class ConflictError(ApiError):
    """Refused: see ``reason`` (``stale``, ``removed``, ...) and ``current``."""

    code = protocol.CONFLICT

    @property
    def reason(self) -> str | None:
        return self.data.get("reason") if isinstance(self.data, dict) else None

    @property
    def current(self) -> Any:
        """The memory as stored now (a dict, as ``memory_get`` returns it), when sent."""
        return self.data.get("memory") if isinstance(self.data, dict) else None


class TooLarge(ApiError):
    code = protocol.TOO_LARGE


class Busy(ApiError):
    code = protocol.BUSY


class Disabled(ApiError):
    """Long-term memory is switched off in the server's config (``[memory] enabled``)."""

    code = protocol.DISABLED


class BackendNotImplementedError(ApiError):
    """The server's ``[memory] backend`` is a placeholder (``data["backend"]`` names it)."""

    code = protocol.NOT_IMPLEMENTED


ERRORS: dict[int, type[ApiError]] = {
    cls.code: cls
    for cls in (
        ParseError,
        InvalidRequest,
        MethodNotFound,
        InvalidParams,
        InternalError,
        NotFoundError,
        Unauthorized,
        ConflictError,
        TooLarge,
        Busy,
        Disabled,
        BackendNotImplementedError,
    )
}


def error_from(payload: dict[str, Any]) -> ApiError:
    code = payload.get("code")
    message = str(payload.get("message", "error"))
    cls = ERRORS.get(code, ApiError) if isinstance(code, int) else ApiError
    return cls(message, code if isinstance(code, int) else None, payload.get("data"))

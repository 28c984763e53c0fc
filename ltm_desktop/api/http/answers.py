"""The HTTP API's JSON answers, errors included: ``{"error": CODE, "detail": TEXT}``."""

from __future__ import annotations

import re
from typing import Any

from starlette.responses import JSONResponse

from ltm_desktop.api.protocol import (
    BUSY,
    CONFLICT,
    INVALID_PARAMS,
    NOT_FOUND,
    PARSE_ERROR,
    TOO_LARGE,
    UNAUTHORIZED,
    RpcError,
)

# JSON-RPC error code -> (HTTP status, error code of the HTTP API)
STATUS_OF = {
    PARSE_ERROR: (400, "invalid_json"),
    INVALID_PARAMS: (400, "invalid_input"),
    UNAUTHORIZED: (401, "unauthorized"),
    NOT_FOUND: (404, "not_found"),
    CONFLICT: (409, "conflict"),
    TOO_LARGE: (413, "too_large"),
    BUSY: (503, "busy"),
}
DISABLED = "ltm_disabled"


class HttpError(Exception):
    """An error answer; raised anywhere in a route, turned into JSON in one place."""

    def __init__(self, status: int, error: str, detail: str, field: str | None = None) -> None:
        super().__init__(detail)
        self.status = status
        self.error = error
        self.detail = detail
        self.field = field


def bad_input(field: str, problem: str) -> HttpError:
    """400 naming the request field (the HTTP spelling: ``q``, ``memoryIds``)."""
    return HttpError(400, "invalid_input", f"{field} {problem}", field)


def error_response(
    status: int, error: str, detail: str, field: str | None = None, **headers: str
) -> JSONResponse:
    body: dict[str, Any] = {"error": error, "detail": detail}
    if field is not None:
        body["field"] = field
    return JSONResponse(body, status_code=status, headers=headers or None)


def from_http_error(exc: HttpError) -> JSONResponse:
    return error_response(exc.status, exc.error, exc.detail, exc.field)


def from_rpc_error(exc: RpcError, renamed: dict[str, str]) -> HttpError:
    """The HTTP error for a socket method's error; ``renamed`` maps the method's param
    names to this request's field names, so the detail names what the caller sent."""
    status, error = STATUS_OF.get(exc.code, (500, "internal_error"))
    detail = exc.message.removeprefix("invalid params: ")
    param = exc.data.get("param") if exc.data else None
    field = renamed.get(param, param) if isinstance(param, str) else None
    for name, alias in renamed.items():
        detail = re.sub(rf"\b{re.escape(name)}\b", alias, detail)
    return HttpError(status, error, detail, field if status == 400 else None)

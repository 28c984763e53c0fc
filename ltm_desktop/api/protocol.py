"""JSON-RPC 2.0 over newline-delimited UTF-8 JSON: framing, errors, envelopes.

Everything a peer sends passes through ``decode_line`` and ``check_request``;
anything malformed becomes a JSON-RPC error object, never an exception.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from ltm_desktop.core.errors import echoed

MAX_LINE_BYTES = 1024 * 1024  # the limit counts the line without its newline
MAX_NESTING = 64

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
NOT_FOUND = -32001
UNAUTHORIZED = -32002
CONFLICT = -32003
TOO_LARGE = -32004
BUSY = -32005
DISABLED = -32006  # [memory] enabled = false: every method but health, hello and auth
NOT_IMPLEMENTED = -32007  # the configured [memory] backend is a placeholder

ERROR_NAMES = {
    PARSE_ERROR: "parse error",
    INVALID_REQUEST: "invalid request",
    METHOD_NOT_FOUND: "method not found",
    INVALID_PARAMS: "invalid params",
    INTERNAL_ERROR: "internal error",
    NOT_FOUND: "not found",
    UNAUTHORIZED: "unauthorized",
    CONFLICT: "conflict",
    TOO_LARGE: "too large",
    BUSY: "busy",
    DISABLED: "disabled",
    NOT_IMPLEMENTED: "not implemented",
}

Id = str | int | float | None


class RpcError(Exception):
    """An error to send back as a JSON-RPC error object."""

    def __init__(self, code: int, message: str, data: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def to_json(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data:
            error["data"] = self.data
        return error


@dataclass(frozen=True, slots=True)
class Request:
    method: str
    params: dict[str, Any]
    id: Id
    is_notification: bool


def encode(message: dict[str, Any] | list[dict[str, Any]]) -> bytes:
    """One line of ASCII JSON (escapes keep even lone surrogates representable)."""
    return json.dumps(message, ensure_ascii=True, separators=(",", ":")).encode("ascii") + b"\n"


def result_message(request_id: Id, result: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def error_message(request_id: Id, error: RpcError) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": error.to_json()}


def notification(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, "params": params}


def _depth(value: Any, limit: int) -> int:
    """How many objects and arrays are nested in a parsed JSON value (scalars add no
    level), without recursion."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, depth)
        if deepest > limit:
            return deepest
        stack.extend((child, depth + 1) for child in children)
    return deepest


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def decode_line(line: bytes) -> Any:
    """Parse one line; raises RpcError(PARSE_ERROR) for anything that is not JSON."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RpcError(
            PARSE_ERROR, f"parse error: the line is not valid UTF-8 ({exc.reason})"
        ) from None
    try:
        value = json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        raise RpcError(
            PARSE_ERROR, f"parse error: JSON nested deeper than {MAX_NESTING} levels"
        ) from None
    except ValueError as exc:
        raise RpcError(PARSE_ERROR, f"parse error: {exc}") from None
    if _depth(value, MAX_NESTING) > MAX_NESTING:
        raise RpcError(PARSE_ERROR, f"parse error: JSON nested deeper than {MAX_NESTING} levels")
    return value


def valid_id(message: Any) -> Id:
    """The request's id if it has a usable one, else None (what errors are sent with)."""
    if not isinstance(message, dict):
        return None
    request_id = message.get("id")
    if isinstance(request_id, bool) or not isinstance(request_id, str | int | float | None):
        return None
    if isinstance(request_id, float) and not math.isfinite(request_id):
        return None  # 1e400 parses as infinity, which JSON cannot carry back
    return request_id


def check_request(message: Any) -> Request:
    """Validate the envelope of one request object (not its params' meaning)."""
    if not isinstance(message, dict):
        raise RpcError(INVALID_REQUEST, "invalid request: a request must be a JSON object")
    request_id = valid_id(message)
    if "id" in message and request_id != message["id"]:
        raise RpcError(INVALID_REQUEST, "invalid request: id must be a string, a number or null")
    if message.get("jsonrpc") != "2.0":
        raise RpcError(INVALID_REQUEST, 'invalid request: "jsonrpc" must be "2.0"')
    method = message.get("method")
    if not isinstance(method, str) or not method:
        raise RpcError(INVALID_REQUEST, 'invalid request: "method" must be a non-empty string')
    extra = set(message) - {"jsonrpc", "id", "method", "params"}
    if extra:
        raise RpcError(
            INVALID_REQUEST, f"invalid request: unexpected member {echoed(sorted(extra)[0])}"
        )
    params = message.get("params", {})
    if params is None:
        params = {}
    if isinstance(params, list):
        if params:
            raise RpcError(
                INVALID_PARAMS, "invalid params: params must be an object (named parameters)"
            )
        params = {}
    if not isinstance(params, dict):
        raise RpcError(INVALID_PARAMS, "invalid params: params must be an object")
    return Request(method, params, request_id, "id" not in message)

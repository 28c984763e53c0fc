"""MCP's stdin, read so that a request holding a lone surrogate still gets an answer.

A JSON string may escape a lone UTF-16 surrogate (``"\\ud800"``: JavaScript's
``JSON.stringify`` writes one for half an emoji). Python's json takes it, but the SDK's
parser rejects the whole line, so a request the server never sees is never answered and
the client waits for its own timeout. This reader, between the process's stdin and the
SDK, replaces each lone surrogate with U+FFFD (as the SDK's reader does with bytes that
are not UTF-8) and notes the request's id, so that a tool call carrying one is refused
with a clear error (nothing stored), and any other request goes on.

No SDK import here: the reader is plain ``io``.
"""

from __future__ import annotations

import io
import json
import re
import threading
from typing import Any, BinaryIO

# A \uD800-\uDFFF escape; an escaped backslash before "u" only costs a closer look.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89abcdefABCDEF]")
_LONE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"


class DamagedRequests:
    """The ids of requests whose text held a lone surrogate, and where: shared by the
    reader thread that finds them and the server that answers them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._where: dict[str, str] = {}

    def add(self, request_id: object, where: str) -> None:
        with self._lock:
            self._where[_key(request_id)] = where

    def take(self, request_id: object) -> str | None:
        """Where the request's lone surrogate was, once (None: the request is sound)."""
        with self._lock:
            return self._where.pop(_key(request_id), None)


def _key(request_id: object) -> str:
    return json.dumps(request_id)  # 1 and "1" are different ids


def _repaired(value: Any, path: str, found: list[str]) -> Any:
    """``value`` with every lone surrogate replaced; ``found`` gets where each string was."""
    if isinstance(value, str):
        if _LONE.search(value) is None:
            return value
        found.append(path or "the message")
        return _LONE.sub(REPLACEMENT, value)
    if isinstance(value, dict):
        return {
            _repaired(k, path, found): _repaired(v, f"{path}.{k}" if path else str(k), found)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_repaired(v, f"{path}[{i}]", found) for i, v in enumerate(value)]
    return value


def repair_line(line: bytes, damaged: DamagedRequests) -> bytes:
    """``line`` as the SDK can parse it: unchanged unless a string in it holds a lone
    surrogate (then re-encoded with U+FFFD in its place, and the request id noted)."""
    if _SURROGATE_ESCAPE.search(line) is None:
        return line
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return line  # not JSON: the SDK answers as it does
    found: list[str] = []
    repaired = _repaired(message, "", found)
    if not found:
        return line
    if isinstance(message, dict) and "id" in message and "method" in message:
        where = found[0].removeprefix("params.arguments.").removeprefix("params.")
        damaged.add(message["id"], where)
    ending = b"\n" if line.endswith(b"\n") else b""
    return json.dumps(repaired, ensure_ascii=False).encode("utf-8") + ending


class RepairingReader(io.RawIOBase):
    """A readable binary stream of ``source``'s lines, each passed through ``repair_line``.

    It has no file descriptor of its own, so the SDK reads it as it is instead of taking
    over fd 0 (stdout is still taken over: stray writes miss the wire)."""

    def __init__(self, source: BinaryIO, damaged: DamagedRequests) -> None:
        super().__init__()
        self._source = source
        self._damaged = damaged
        self._pending = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if not self._pending:
            self._pending = repair_line(self._source.readline(), self._damaged)
        view = memoryview(buffer).cast("B")
        size = min(len(view), len(self._pending))
        view[:size] = self._pending[:size]
        self._pending = self._pending[size:]
        return size

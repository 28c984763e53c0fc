"""Inputs that were once quadratic, as functions of their size: one catalogue for the
tests (which say each one ends) and ``bench/scale/growth_bench.py`` (which times each at two
sizes and says how the time grows)."""

from __future__ import annotations

import base64
from collections.abc import Callable

Shape = Callable[[int], str]
"""Text of about ``n`` units (tags, characters, fields: whatever the shape repeats)."""

REPLIES: dict[str, Shape] = {
    "unclosed <think> tags": lambda n: "<think>" * n,
    "<think> tags closed at the end": lambda n: "<think>" * n + '</think>[{"a": 1}]',
    "thinking spans": lambda n: "<think>[x]</think>" * n + "[]",
    "unclosed fences with long words": lambda n: "```" + "a" * n + " " * n,
    "many [": lambda n: "[" * n,
    "many {": lambda n: "{" * n,
    "nested lists never closed": lambda n: "[0," * n,
    "nested objects never closed": lambda n: '{"a":' * n,
    "[ in strings": lambda n: '["[",' * n,
}
"""Extractor replies (``parse_reply``): a backtracking regex or a rescan per ``[``."""


def minified(value: str) -> Shape:
    """Minified JSON whose values look key-like: ``{"k0":"<value>00000",...}``."""
    return lambda n: "{" + ",".join(f'"k{i}":"{value}{i:05d}"' for i in range(n)) + "}"


def certificates(n: int) -> str:
    """A PEM block of about ``n`` 64-character base64 lines of binary data."""
    body = base64.b64encode(bytes(range(256)) * max(1, n * 48 // 256)).decode()
    lines = "\n".join(body[i : i + 64] for i in range(0, len(body), 64))
    return f"-----BEGIN CERTIFICATE-----\n{lines}\n-----END CERTIFICATE-----"


SECRET_SCANS: dict[str, Shape] = {
    "minified letters": minified("abcdefghijklmnopqrstuvwxyz0123456789abcdefghij"),
    "minified base64 text": minified(base64.b64encode(b"an ordinary value, long").decode()),
    "minified hex": minified("3f786850e387550fdab836ed7e6dc881de23001b"),
    "certificate lines": certificates,
    "spaced letters": lambda n: " ".join("abcdefgh" * (n // 8)),
    'a run of "key" values': lambda n: (
        '{"key":' + '"abcdefghijklmnopqrstuvwxyz0123456789abcdefghij",' * n
    ),
    "a run of sk-ant-": lambda n: "sk-ant-" * n,
    "a run of sk-proj-": lambda n: "sk-proj-" * n,
    "a run of sk-": lambda n: "sk-" * n,
}
"""Texts for ``find_secrets``: a detector pattern that looked ahead over the whole run."""

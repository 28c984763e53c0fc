"""Finding the JSON array of entries in a model's reply.

Models wrap it in a ```json fence, put prose around it, think aloud first
(``<think>...</think>``), or answer ``{"memories": [...]}``; all of these are read.
What is inside the array is judged by the core (``core.extraction.check_entries``).
"""

from __future__ import annotations

import json
import re

from ltm_desktop.core.secrets import redact

FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n?(.*?)```", re.DOTALL)
THINKING = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
WRAPPERS = ("memories", "items", "entries", "results")


class ReplyError(Exception):
    """The reply holds no JSON array of entries."""


def parse_reply(text: str) -> list[object]:
    """The entries of the first JSON array in ``text`` (one of objects, preferably)."""
    text = THINKING.sub("", text).strip()
    candidates = [match.group(1).strip() for match in FENCE.finditer(text)] + [text]
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        found = _entries(value)
        if found is not None:
            return found
    fallback: list[object] | None = None
    decoder = json.JSONDecoder()
    for match in re.finditer(r"[\[{]", text):
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except ValueError:
            continue
        found = _entries(value)
        if found is None:
            continue
        if not found or any(isinstance(item, dict) for item in found):
            return found
        fallback = found if fallback is None else fallback  # e.g. a footnote "[1]"
    if fallback is not None:
        return fallback
    raise ReplyError(f"the model's reply holds no JSON array: {_excerpt(text)}")


def _entries(value: object) -> list[object] | None:
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        for key in WRAPPERS:
            if isinstance(value.get(key), list):
                return list(value[key])
    return None


def _excerpt(text: str, limit: int = 120) -> str:
    flat = " ".join(text.split())
    if not flat:
        return "(empty)"
    return repr(redact(flat if len(flat) <= limit else flat[: limit - 1] + "…"))

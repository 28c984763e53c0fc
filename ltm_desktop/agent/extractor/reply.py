"""Finding the JSON array of entries in a model's reply.

Models wrap it in a ```json fence, put prose around it, think aloud first
(``<think>...</think>``), or answer ``{"memories": [...]}``; all of these are read.
What is inside the array is judged by the core (``core.extraction.check_entries``).

A reply is untrusted text of any size, so every step is linear in its length: thinking is
cut in one pass over its tags (a lazy ``<think>.*?</think>`` regex rescans the rest of the
reply from every unclosed tag: quadratic), fences are found by a regex that cannot
backtrack into them, and the search for an array in prose has a budget proportional
to the reply's length (JSON nested too deep to decode is skipped).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator

from ltm_desktop.core.privacy.secrets import redact

# Possessive: backtracking into the language word or the spaces (which cannot hold the
# closing fence) made an unclosed fence quadratic.
FENCE = re.compile(r"```[A-Za-z0-9_-]*+[ \t]*+\n?(.*?)```", re.DOTALL)
THINK_TAG = re.compile(r"<(/?)think>", re.IGNORECASE)
OPENING = re.compile(r"[\[{]")
WRAPPERS = ("memories", "items", "entries", "results")
# The search for an array in prose: its work, in units of decoding one character
# (about 10 ns), is at most SEARCH_FACTOR times the reply's length plus SEARCH_MINIMUM.
SEARCH_FACTOR = 8
SEARCH_MINIMUM = 5_000_000  # about 50 ms
NESTING_COST = 30  # entering a nested array or object
FAILURE_COST = 500  # raising and catching a decode error
LINE_COUNTING = 10  # characters of line counting per unit

log = logging.getLogger(__name__)


class ReplyError(Exception):
    """The reply holds no JSON array of entries."""


def parse_reply(text: str) -> list[object]:
    """The entries of the first JSON array in ``text`` (one of objects, preferably)."""
    text = without_thinking(text).strip()
    candidates = [match.group(1).strip() for match in FENCE.finditer(text)] + [text]
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except (ValueError, RecursionError):
            continue
        found = _entries(value)
        if found is not None:
            return found
    fallback: list[object] | None = None
    for value in _embedded_values(text):
        found = _entries(value)
        if found is None:
            continue
        if not found or any(isinstance(item, dict) for item in found):
            return found
        fallback = found if fallback is None else fallback  # e.g. a footnote "[1]"
    if fallback is not None:
        return fallback
    raise ReplyError(f"the model's reply holds no JSON array: {_excerpt(text)}")


def _embedded_values(text: str) -> Iterator[object]:
    """The JSON values that start at a ``[`` or ``{`` of ``text``, in order, until the
    work done reaches ``SEARCH_FACTOR`` times its length plus ``SEARCH_MINIMUM``.

    Without the budget, decoding from every bracket of ``[[[[...`` or ``[0,[0,...``
    rescans the rest each time (or recurses to Python's limit), and each failure counts
    the lines up to where it failed: quadratic. Each attempt is charged what it did.
    """
    decoder = json.JSONDecoder()
    budget = SEARCH_FACTOR * len(text) + SEARCH_MINIMUM
    used = 0
    for match in OPENING.finditer(text):
        if used >= budget:
            log.info("the search for JSON in the reply stopped after %d units of work", used)
            return
        start = match.start()
        try:
            value, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError as exc:
            used += _failure_cost(text, start, exc)
            continue
        except RecursionError:  # nested deeper than Python's recursion limit
            used += FAILURE_COST + _decode_cost(text, start, len(text))
            continue
        used += _decode_cost(text, start, end)
        yield value


def _decode_cost(text: str, start: int, end: int) -> int:
    """Decoding ``text[start:end]``: a character each, more for a nested value."""
    nested = text.count("[", start, end) + text.count("{", start, end)
    return end - start + NESTING_COST * nested


def _failure_cost(text: str, start: int, exc: json.JSONDecodeError) -> int:
    """A failed decode: what it read (an unterminated string is reported where it began,
    but read to the end), the error, and its line number (counted from the start)."""
    read_to = len(text) if exc.msg.startswith("Unterminated string") else exc.pos
    return FAILURE_COST + _decode_cost(text, start, read_to) + exc.pos // LINE_COUNTING


def without_thinking(text: str) -> str:
    """``text`` without its ``<think>...</think>`` spans, in one pass over the tags.

    As ``re.sub(r"<think>.*?</think>", "", text, flags=re.S | re.I)`` would cut them: each
    opening tag up to the first closing tag after it; an unclosed one is left as it is.
    """
    kept: list[str] = []
    start = 0  # where the text still to keep begins
    opened: int | None = None  # where the open thinking span began
    for tag in THINK_TAG.finditer(text):
        closing = bool(tag.group(1))
        if opened is None and not closing:
            opened = tag.start()
        elif opened is not None and closing:
            kept.append(text[start:opened])
            start, opened = tag.end(), None
    kept.append(text[start:])
    return "".join(kept)


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

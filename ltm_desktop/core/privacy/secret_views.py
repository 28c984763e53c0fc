"""A text's secrets as they may be hidden: the views of it that the secret scan reads too.

A credential is still a credential, to a model and to whoever reads the memory later,
when it is split over two lines, spaced out (``A K I A ...``), has a zero-width space or
full-width letters inside, is base64- or hex-encoded, or is written backwards. The
patterns of ``core.secrets`` see none of those, so the scan also reads these views:

- ``obfuscated``: format and zero-width characters inside a token removed, full-width
  and other compatibility forms of token characters folded (NFKC), a line break between
  two long token-like pieces removed, and the spaces of a spaced-out run removed;
- ``in base64`` / ``in hex``: each long enough run decoded, when what it decodes to is
  readable text (a hash, an image or a compressed blob decodes to bytes that are not);
- ``reversed``: the text backwards, for the token formats with a distinctive prefix.

Each view knows where its characters came from, so a finding in it names, and redacts,
the whole disguised run of the text as written.
"""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from ltm_desktop.core.privacy.folding import IGNORABLE

OBFUSCATED = "obfuscated"
BASE64 = "in base64"
HEX = "in hex"
REVERSED = "reversed"

TOKEN = "A-Za-z0-9_+/=-"  # what API keys and their encodings are made of
MIN_PIECE = 8  # token characters on each side of a line break for the lines to be joined
# The end of a line and the start of the next (after indentation or a quote marker) that
# may be two pieces of one token: long enough on both sides, and a digit in one of them,
# as random keys have (wrapped prose and identifiers in code seldom do).
_PIECE_BEFORE = re.compile(rf"[{TOKEN}]{{{MIN_PIECE},}}(?P<gap>[ \t\r]*)\Z")
_PIECE_AFTER = re.compile(rf"(?P<gap>[ \t>]*)[{TOKEN}]{{{MIN_PIECE},}}")
_DIGIT = re.compile(r"\d")
_LINE_TAIL = 80  # characters before a line break that _PIECE_BEFORE looks at
# At least 8 single token characters with a space or tab between each two; _MAYBE_SPACED
# is the quick test that there may be one.
_MAYBE_SPACED = re.compile(r" \S \S \S ")
_SPACED = re.compile(rf"(?<!\S)(?:[{TOKEN}][ \t]){{7,}}[{TOKEN}](?!\S)")
_GAP = re.compile(r"[ \t]")
_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_+/=-")
# Zero-width and other format characters between two token characters.
_INVISIBLE_IN_TOKEN = re.compile(rf"(?<=[{TOKEN}]){IGNORABLE.pattern}+(?=[{TOKEN}])")
# Runs that may be an encoded or reversed credential; the base64 padding is kept apart,
# so that "token=Z2hw..." is the run "Z2hw...".
_RUN = re.compile(r"[A-Za-z0-9_+/-]{16,}=*")
MIN_BASE64 = 24  # characters: 18 bytes decoded
MIN_DECODED = 16  # bytes: the shortest credential worth decoding a run for
MIN_READABLE = 0.95  # of a decoded text's characters printable, or it is not text
# Inside a run: hex digits (a file name "dumps/414b4941....bin" holds one), and the parts
# of a path, each of which may be base64.
_HEX_IN_RUN = re.compile(r"(?<![0-9A-Za-z])(?:0x)?((?:[0-9A-Fa-f]{2}){16,})(?![0-9A-Za-z])")


@dataclass(frozen=True, slots=True)
class View:
    """A text derived from the one scanned, and where its characters came from.

    Attributes:
        how: what was undone ("obfuscated", "in base64"...), for the finding's kind.
        origin: for each character of ``text``, its index in the scanned text; None for
            a decoded run, whose findings are the whole ``run``.
    """

    how: str
    text: str
    origin: Sequence[int] | None = None
    run: tuple[int, int] = (0, 0)

    def span(self, start: int, end: int) -> tuple[int, int]:
        """Where ``text[start:end]`` is in the scanned text."""
        if self.origin is None:
            return self.run
        first, last = self.origin[start], self.origin[end - 1]
        return min(first, last), max(first, last) + 1


def views(text: str) -> Iterator[View]:
    """The views of ``text`` worth scanning (none that equals ``text`` itself)."""
    compact = _compact(text)
    base = compact or View(OBFUSCATED, text, range(len(text)))
    if compact is not None:
        yield compact
    runs = list(_RUN.finditer(base.text))
    for run in runs:
        yield from _decoded(base, run)
    if runs:
        yield _reversed(base, runs)


def _reversed(base: View, runs: list[re.Match[str]]) -> View:
    """The long runs of ``base`` backwards (a space between two), for the formats with a
    distinctive prefix: ``ghp_...`` written ``..._phg``."""
    origin = base.origin or range(len(base.text))
    chars: list[str] = []
    where: list[int] = []
    for run in reversed(runs):
        chars.append(run.group()[::-1] + " ")
        where += [*origin[run.start() : run.end()][::-1], origin[run.start()]]
    return View(REVERSED, "".join(chars), where)


def _compact(text: str) -> View | None:
    """The ``obfuscated`` view, or None when there is nothing to undo."""
    chars = text if text.isascii() else text.translate(_token_forms(text))
    drops = _split_lines(chars)
    if not chars.isascii():
        drops += [m.span() for m in _INVISIBLE_IN_TOKEN.finditer(chars)]
    if _MAYBE_SPACED.search(chars):
        for spaced in _SPACED.finditer(chars):
            drops += [
                (spaced.start() + m.start(), spaced.start() + m.end())
                for m in _GAP.finditer(spaced.group())
            ]
    if not drops and chars == text:
        return None
    kept_text: list[str] = []
    kept_origin: list[int] = []
    at = 0
    for start, end in sorted(drops):
        if start > at:
            kept_text.append(chars[at:start])
            kept_origin += range(at, start)
        at = max(at, end)
    kept_text.append(chars[at:])
    kept_origin += range(at, len(chars))
    return View(OBFUSCATED, "".join(kept_text), kept_origin)


def _token_forms(text: str) -> dict[int, str]:
    """Each character of ``text`` whose compatibility form (NFKC) is one token character
    (full-width ``Ａ``, mathematical ``𝐀``), mapped to it: one character for one, so
    each keeps its place."""
    forms: dict[int, str] = {}
    for char in set(text):
        if not char.isascii():
            form = unicodedata.normalize("NFKC", char)
            if len(form) == 1 and form in _TOKEN_CHARS:
                forms[ord(char)] = form
    return forms


def _split_lines(text: str) -> list[tuple[int, int]]:
    """Each line break (with the spaces around it) between two pieces of a token."""
    drops: list[tuple[int, int]] = []
    at = text.find("\n")
    while at != -1:
        before = _PIECE_BEFORE.search(text, max(0, at - _LINE_TAIL), at)
        after = _PIECE_AFTER.match(text, at + 1)
        if before and after and (_DIGIT.search(before.group()) or _DIGIT.search(after.group())):
            drops.append((before.start("gap"), after.end("gap")))
        at = text.find("\n", at + 1)
    return drops


def _decoded(base: View, run: re.Match[str]) -> Iterator[View]:
    """The run, or a part of its path, as base64, and its hex digits as hex, where that
    decodes to text."""
    encoded = run.group()
    span = base.span(run.start(), run.end())
    parts = [encoded, *encoded.split("/")] if "/" in encoded else [encoded]
    for part in parts:
        if len(part) >= MIN_BASE64:
            decoded = _readable(_unbase64(part))
            if decoded is not None:
                yield View(BASE64, decoded, run=span)
                break
    for digits in _HEX_IN_RUN.finditer(encoded):
        decoded = _readable(bytes.fromhex(digits.group(1)))
        if decoded is not None:
            yield View(
                HEX,
                decoded,
                run=base.span(run.start() + digits.start(), run.start() + digits.end()),
            )


def _unbase64(run: str) -> bytes:
    """The bytes of a base64 run (standard or URL-safe alphabet, padded or not)."""
    run = run.rstrip("=").replace("-", "+").replace("_", "/")
    run = run[: len(run) - (len(run) % 4 == 1)]  # a stray last character
    try:
        return base64.b64decode(run + "=" * (-len(run) % 4), validate=True)
    except binascii.Error:
        return b""


def _readable(data: bytes) -> str | None:
    """``data`` as text, if it is UTF-8 made (almost) only of printable characters."""
    if len(data) < MIN_DECODED:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    printable = sum(c.isprintable() or c in "\t\n\r" for c in text)
    return text if printable >= MIN_READABLE * len(text) else None

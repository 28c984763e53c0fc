"""Clean text: what a stored field may hold, whatever a caller sends.

Whatever is stored is shown in a terminal, a table and a prompt. Control characters
(ESC, BEL, backspace: C0 and C1, except newline and tab) can rewrite a terminal line
or hide text, and bidirectional overrides and isolates (U+202A-U+202E, U+2066-U+2069)
make text read differently from what it says: both are removed. Carriage returns become
newlines. Zero-width characters are kept (joiners are part of emoji and of several
scripts), but a field with nothing visible left is refused by the rules.
"""

from __future__ import annotations

import re
import unicodedata

# C0 except NUL (refused by rules.check_text), tab and newline; DEL; C1; bidi embeddings,
# overrides and isolates.
_UNWANTED = re.compile("[\x01-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_NEWLINES = re.compile("\r\n?")
# Characters that render as nothing although they are neither spaces nor format characters.
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def unstorable(text: str) -> str | None:
    """Why ``text`` cannot be stored, or None: a lone surrogate (JSON can carry one; it is
    no UTF-8, so neither SQLite nor a file system takes it) or a NUL (it ends C strings)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "contains invalid Unicode (a lone surrogate)"
    if "\x00" in text:
        return "contains a NUL character"
    return None


def clean_text(text: str) -> str:
    """``text`` without control characters (newline and tab kept) and bidi overrides."""
    return _UNWANTED.sub("", _NEWLINES.sub("\n", text))


def is_invisible(text: str) -> bool:
    """True when ``text`` shows nothing: only spaces, format characters (zero-width
    space, joiners, marks, BOM, soft hyphen) and blank letters."""
    return all(
        ch.isspace() or ch in _BLANK_LETTERS or unicodedata.category(ch) == "Cf" for ch in text
    )


def nfc(text: str) -> str:
    """The composed form: the same text typed or pasted differently hashes the same."""
    return unicodedata.normalize("NFC", text)

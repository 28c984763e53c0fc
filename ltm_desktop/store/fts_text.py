"""Text as the FTS5 index sees it, and back again for snippets.

unicode61 keeps a run of CJK characters as one token, so a two-character word
inside a longer sentence could never match. Each CJK character is therefore
indexed as a token of its own and CJK words are searched as phrases, which
matches any run of two or more characters exactly.
"""

from __future__ import annotations

import re

from ltm_desktop.core.query import CJK_CLASS

TOKENIZER = "unicode61 remove_diacritics 2"
MARK_OPEN = "\x02"
MARK_CLOSE = "\x03"
HIT_OPEN = "**"
HIT_CLOSE = "**"

_CJK_CHAR_RE = re.compile(f"([{CJK_CLASS}])")
# index_text wraps each CJK character in one space on each side; this undoes
# exactly that, also when FTS markers sit between the space and the character.
_CJK_UNSPACE_RE = re.compile(f"(?:^| )({MARK_OPEN}?)([{CJK_CLASS}])({MARK_CLOSE}?)(?: |$)")


def index_text(text: str) -> str:
    """The form stored in the FTS table: CJK characters separated by spaces."""
    if not _CJK_CHAR_RE.search(text):
        return text
    return _CJK_CHAR_RE.sub(r" \1 ", text)


def display_snippet(raw: str) -> str:
    """Undo ``index_text`` spacing and turn FTS markers into ``**hit**``."""
    if _CJK_CHAR_RE.search(raw):
        raw = _CJK_UNSPACE_RE.sub(r"\1\2\3", raw)
    return raw.replace(MARK_OPEN, HIT_OPEN).replace(MARK_CLOSE, HIT_CLOSE).strip()

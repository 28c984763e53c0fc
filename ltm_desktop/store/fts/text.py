"""Text as the FTS5 index sees it.

unicode61 keeps a run of CJK characters as one token, so a two-character word
inside a longer sentence could never match. Each CJK character is therefore
indexed as a token of its own and CJK words are searched as phrases, which
matches any run of two or more characters exactly. (Snippets are made from the
original text, see ``engine/snippets.py``, so nothing needs to undo this spacing.)
"""

from __future__ import annotations

import re

from ltm_desktop.core.search.query import CJK_CLASS

TOKENIZER = "unicode61 remove_diacritics 2"

_CJK_CHAR_RE = re.compile(f"([{CJK_CLASS}])")


def index_text(text: str) -> str:
    """The form stored in the FTS table: CJK characters separated by spaces."""
    if not _CJK_CHAR_RE.search(text):
        return text
    return _CJK_CHAR_RE.sub(r" \1 ", text)

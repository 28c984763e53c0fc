"""What a memory or an observation is indexed as for full-text search (``tsvector``).

The text is cut into words in Python as SQLite's ``unicode61 remove_diacritics 2``
tokenizer cuts it (letters and digits; case and accents folded; each CJK character a
word of its own), and the words are handed to PostgreSQL's ``simple`` configuration,
which keeps them as they are: no stemming and no stop words, so code tokens survive.
Titles weigh most (A), then tags (B), then the text (D).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from ltm_desktop.core.search.query import CJK_CLASS

_CJK = re.compile(f"([{CJK_CLASS}])")
_NOT_WORD = re.compile(r"[^\w]|_", re.UNICODE)

MEMORY_DOCUMENT_SQL = (
    "setweight(to_tsvector('simple', %s), 'A') || setweight(to_tsvector('simple', %s), 'B') "
    "|| setweight(to_tsvector('simple', %s), 'D')"
)
OBSERVATION_DOCUMENT_SQL = (
    "setweight(to_tsvector('simple', %s), 'A') || setweight(to_tsvector('simple', %s), 'D')"
)


def words(text: str) -> str:
    """``text`` as space-separated words, folded as the SQLite index folds them."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    folded = "".join(c for c in decomposed if not unicodedata.combining(c))
    spaced = _CJK.sub(r" \1 ", folded)
    return " ".join(_NOT_WORD.sub(" ", spaced).split())


def memory_document_params(title: str, content: str, tags: Sequence[str]) -> tuple[str, str, str]:
    """The values ``MEMORY_DOCUMENT_SQL`` takes, in order."""
    return words(title), words(" ".join(tags)), words(content)


def observation_document_params(title: str, narrative: str) -> tuple[str, str]:
    return words(title), words(narrative)

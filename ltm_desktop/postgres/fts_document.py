"""What a memory or an observation is indexed as for full-text search (``tsvector``).

The words are cut and folded in Python, exactly as the query side cuts them
(``core.search.query.split_words``, then ``engine.snippets.fold``: lower case, no Latin
diacritics, each CJK character a word of its own), and handed to PostgreSQL as a
``tsvector`` literal with their positions. PostgreSQL's own parser is never used: it splits
``v2.1.0`` or ``src/app.py`` by rules of its own, and with a ``C`` locale it does not know
non-ASCII letters, so a query word could miss the very word it was cut from.

Positions run on across the columns with a gap between them, so a phrase never spans a
title and its text. Titles weigh most (A), then tags (B), then the text (D).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from ltm_desktop.core.search.query import split_words
from ltm_desktop.engine.snippets import fold

MEMORY_DOCUMENT_SQL = "%s::tsvector"
OBSERVATION_DOCUMENT_SQL = "%s::tsvector"

MAX_LEXEME_BYTES = 2046  # PostgreSQL refuses a longer word
MAX_POSITION = 16383  # later positions are stored as this one (a phrase there cannot match)
MAX_POSITIONS = 256  # positions PostgreSQL keeps per word (it drops the others)


def words(text: str) -> list[str]:
    """``text``'s words as the index holds them (and the query looks them up)."""
    return [fold(word) for word in split_words(unicodedata.normalize("NFC", text))]


def lexeme(word: str) -> str:
    """A word quoted for a ``tsvector`` or ``tsquery`` literal (no other syntax applies)."""
    return "'" + word.replace("\\", "\\\\").replace("'", "''") + "'"


def document(columns: Sequence[tuple[str, str]]) -> str:
    """The ``tsvector`` literal of (text, weight) columns, in order."""
    positions: dict[str, list[str]] = {}
    at = 0
    for text, weight in columns:
        for word in words(text):
            at += 1
            if len(word.encode("utf-8")) > MAX_LEXEME_BYTES:
                continue
            kept = positions.setdefault(word, [])
            if len(kept) < MAX_POSITIONS:
                kept.append(f"{min(at, MAX_POSITION)}{weight}")
        at += 1  # a gap between columns
    return " ".join(f"{lexeme(word)}:{','.join(at)}" for word, at in positions.items())


def memory_document_params(title: str, content: str, tags: Sequence[str]) -> tuple[str]:
    """The values ``MEMORY_DOCUMENT_SQL`` takes, in order."""
    return (document(((title, "A"), (" ".join(tags), "B"), (content, "D"))),)


def observation_document_params(title: str, narrative: str) -> tuple[str]:
    """The values ``OBSERVATION_DOCUMENT_SQL`` takes, in order."""
    return (document(((title, "A"), (narrative, "D"))),)

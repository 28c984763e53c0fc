"""What a memory or an observation is indexed as for full-text search (``tsvector``).

The words are cut and folded in Python, exactly as the query side cuts them
(``core.search.query.split_words``, then ``engine.snippets.fold``: lower case, no Latin
diacritics, each CJK character a word of its own), and handed to PostgreSQL as a
``tsvector`` literal with their positions. PostgreSQL's own parser is never used: it splits
``v2.1.0`` or ``src/app.py`` by rules of its own, and with a ``C`` locale it does not know
non-ASCII letters, so a query word could miss the very word it was cut from.

A memory's words carry its scope: ``12:deploy`` in scope 12. One GIN index holds every
scope, and a word's entry would list the memories of all of them; with the scope in the
word, a lookup (above all a prefix's, ``'12:deplo':*``, which unions every word it starts)
reads its own scope's memories only, as SQLite's table per scope does: 4-8 times faster at
100,000 memories over 20 scopes. A memory never changes scope (a move makes a new one).
Observations are searched across scopes at once, and keep plain words.

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


def scoped(project_pk: int, word: str) -> str:
    """A memory's word as its scope's index holds it."""
    return f"{int(project_pk)}:{word}"


def document(columns: Sequence[tuple[str, str]], project_pk: int | None = None) -> str:
    """The ``tsvector`` literal of (text, weight) columns, in order; each word carries
    ``project_pk`` when given."""
    positions: dict[str, list[str]] = {}
    at = 0
    for text, weight in columns:
        for plain in words(text):
            at += 1
            word = plain if project_pk is None else scoped(project_pk, plain)
            if len(word.encode("utf-8")) > MAX_LEXEME_BYTES:
                continue
            kept = positions.setdefault(word, [])
            if len(kept) < MAX_POSITIONS:
                kept.append(f"{min(at, MAX_POSITION)}{weight}")
        at += 1  # a gap between columns
    return " ".join(f"{lexeme(word)}:{','.join(at)}" for word, at in positions.items())


def memory_document_params(
    title: str, content: str, tags: Sequence[str], *, project_pk: int
) -> tuple[str]:
    """The values ``MEMORY_DOCUMENT_SQL`` takes, in order, for a memory of scope
    ``project_pk`` (its ``projects.pk``)."""
    columns = ((title, "A"), (" ".join(tags), "B"), (content, "D"))
    return (document(columns, project_pk),)


def observation_document_params(title: str, narrative: str) -> tuple[str]:
    """The values ``OBSERVATION_DOCUMENT_SQL`` takes, in order."""
    return (document(((title, "A"), (narrative, "D"))),)

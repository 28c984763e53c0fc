"""What a query term matches, as phrases of words: both engines compile their queries
from these, and the snippets mark the same phrases, so a hit is marked where it was found.

Plain words match their forms through a root prefix (``deploying`` -> ``deploy*``); short
words match themselves and a plural.
"""

from __future__ import annotations

from dataclasses import dataclass

from ltm_desktop.core.search.query import MIN_ROOT_CHARS, Term, word_root


@dataclass(frozen=True, slots=True)
class Phrase:
    """Adjacent words; ``prefix``: the last word may go on."""

    words: tuple[str, ...]
    prefix: bool = False


def term_phrases(term: Term) -> tuple[Phrase, ...]:
    """What a term matches: any one of these phrases."""
    if len(term.words) > 1 or term.exact:
        return (Phrase(term.words, term.prefix),)
    word = term.words[0]
    if term.prefix:
        return (Phrase((word,), prefix=True),)
    root = word_root(word)
    if len(root) >= MIN_ROOT_CHARS and root.isalpha():
        return (Phrase((root,), prefix=True),)
    if word.isalpha() and word.isascii():
        return (Phrase((word,)), Phrase((word + "s",)))
    return (Phrase((word,)),)

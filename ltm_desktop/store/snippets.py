"""Snippets: the stretch of a memory's content around the words a search matched.

FTS5 can make them (``snippet()``), but only inside the query that ranks, and
reading the score there makes FTS5 walk every phrase's postings a second time
(see ``search.py``). So the search ranks with a lean query and the few hits it
returns get their snippets here, from the same phrases the query compiled to.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from ltm_desktop.core.query import WORD_RE
from ltm_desktop.store.fts_query import Phrase
from ltm_desktop.store.fts_text import HIT_CLOSE, HIT_OPEN

SNIPPET_WORDS = 24
ELLIPSIS = "…"


def fold(word: str) -> str:
    """Lower-case without diacritics, as the index's tokenizer sees a word."""
    word = word.lower()
    if word.isascii():
        return word
    return "".join(c for c in unicodedata.normalize("NFD", word) if not unicodedata.combining(c))


def _matches(words: Sequence[str], at: int, phrase: Phrase) -> bool:
    wanted = phrase.words
    if at + len(wanted) > len(words):
        return False
    last = len(wanted) - 1
    for i, want in enumerate(wanted):
        word = words[at + i]
        if not (word == want or (i == last and phrase.prefix and word.startswith(want))):
            return False
    return True


def find_hits(
    words: Sequence[str], terms: Sequence[Sequence[Phrase]]
) -> list[tuple[int, int, int]]:
    """(first word, last word, term index) of every phrase occurrence, in text order."""
    folded_terms = [
        [Phrase(tuple(fold(w) for w in p.words), p.prefix) for p in phrases] for phrases in terms
    ]
    firsts = {p.words[0][:1] for phrases in folded_terms for p in phrases}
    hits = []
    for at, word in enumerate(words):
        if word[:1] not in firsts:
            continue
        for index, phrases in enumerate(folded_terms):
            for phrase in phrases:
                if _matches(words, at, phrase):
                    hits.append((at, at + len(phrase.words) - 1, index))
                    break
    return hits


def _best_window(hits: list[tuple[int, int, int]], count: int, size: int) -> int:
    """The first word of the ``size``-word window with the most different terms (then
    the most hits), moved so that its hits sit in the middle."""
    best, best_score = 0, (-1, -1)
    for start, _, _ in hits:
        inside = [h for h in hits if start <= h[0] and h[1] < start + size]
        score = (len({h[2] for h in inside}), len(inside))
        if score > best_score:
            best, best_score = start, score
    inside = [h for h in hits if best <= h[0] and h[1] < best + size]
    if not inside:
        return 0
    first, last = inside[0][0], max(h[1] for h in inside)
    slack = size - (last - first + 1)
    return max(0, min(first - slack // 2, count - size))


def make_snippet(text: str, terms: Sequence[Sequence[Phrase]], size: int = SNIPPET_WORDS) -> str:
    """About ``size`` words of ``text`` around the best hits, each hit as ``**hit**``,
    cuts marked with ``…``. ``terms``: each query term's phrases (any one matches)."""
    spans = [m.span() for m in WORD_RE.finditer(text)]
    if not spans:
        return text.strip()
    words = [fold(text[a:b]) for a, b in spans]
    hits = find_hits(words, terms)
    start = 0 if len(words) <= size else _best_window(hits, len(words), size)
    end = min(len(words), start + size) - 1
    begin_char = 0 if start == 0 else spans[start][0]
    end_char = len(text) if end == len(words) - 1 else spans[end][1]
    out = [ELLIPSIS] if start > 0 else []
    cursor = begin_char
    for first, last, _ in _merged([h for h in hits if start <= h[0] and h[1] <= end]):
        a, b = spans[first][0], spans[last][1]
        out += [text[cursor:a], HIT_OPEN, text[a:b], HIT_CLOSE]
        cursor = b
    out.append(text[cursor:end_char])
    if end < len(words) - 1:
        out.append(ELLIPSIS)
    return "".join(out).strip()


def _merged(hits: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """Overlapping hits (one word matched by two terms) become one marked stretch."""
    merged: list[tuple[int, int, int]] = []
    for first, last, term in sorted(hits):
        if merged and first <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], last), merged[-1][2])
        else:
            merged.append((first, last, term))
    return merged

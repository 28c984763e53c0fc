"""Snippets: the stretch of a memory's content around the words a search matched.

FTS5 can make them (``snippet()``), but only inside the query that ranks, and
reading the score there makes FTS5 walk every phrase's postings a second time
(``store/fts/search.py``). So both engines rank with a lean query and the few hits it
returns get their snippets here, from the same phrases the query compiled to.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

from ltm_desktop.core.search.query import WORD_RE
from ltm_desktop.engine.phrases import Phrase

SNIPPET_WORDS = 24
ELLIPSIS = "…"
HIT_OPEN = HIT_CLOSE = "**"


@lru_cache(maxsize=65_536)
def fold(word: str) -> str:
    """A word as the index's tokenizer compares it: lower-case, and without the
    diacritics of Latin letters (unicode61 ``remove_diacritics`` leaves other
    scripts' marks alone: パ is not ハ, й is not и)."""
    word = word.lower()
    if word.isascii():
        return word
    kept: list[str] = []
    latin = False
    for char in unicodedata.normalize("NFD", word):
        if unicodedata.combining(char):
            if not latin:
                kept.append(char)
            continue
        latin = unicodedata.name(char, "").startswith("LATIN")
        kept.append(char)
    return unicodedata.normalize("NFC", "".join(kept))


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


Hit = tuple[int, int, int]  # first word, last word, term index


def find_hits(words: Sequence[str], terms: Sequence[Sequence[Phrase]]) -> list[Hit]:
    """Every phrase occurrence, in text order."""
    folded_terms = [
        [Phrase(tuple(fold(w) for w in p.words), p.prefix) for p in phrases] for phrases in terms
    ]
    firsts = {p.words[0][:1] for phrases in folded_terms for p in phrases if p.words[0]}
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


def _best_window(hits: list[Hit], count: int, size: int) -> int:
    """The first word of the ``size``-word window whose hits cover the most different
    terms (then the most hits), moved so that those hits sit in the middle. One pass
    over the hits, so long texts full of hits stay cheap."""
    if not hits:
        return 0
    best, best_score = (0, 1), (0, 0)
    terms: Counter[int] = Counter()
    end = 0
    for begin, (first, _, _) in enumerate(hits):
        while end < len(hits) and hits[end][0] < first + size:
            terms[hits[end][2]] += 1
            end += 1
        score = (len(terms), end - begin)
        if score > best_score:
            best, best_score = (begin, end), score
        terms[hits[begin][2]] -= 1
        if not terms[hits[begin][2]]:
            del terms[hits[begin][2]]
    inside = hits[best[0] : best[1]]
    first, last = inside[0][0], max(hit[1] for hit in inside)
    slack = max(0, size - (last - first + 1))  # a phrase longer than the window: clip it
    return max(0, min(first - slack // 2, count - size))


def make_snippet(text: str, terms: Sequence[Sequence[Phrase]], size: int = SNIPPET_WORDS) -> str:
    """About ``size`` words of ``text`` around the best hits, each hit as ``**hit**``,
    cuts marked with ``…``. ``terms``: each query term's phrases (any one matches)."""
    text = unicodedata.normalize("NFC", text)  # accents typed as combining marks join their letter
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
    visible = [(max(f, start), min(last, end)) for f, last, _ in hits if f <= end and last >= start]
    for first, last in _merged(visible):
        a, b = spans[first][0], spans[last][1]
        if a == cursor and out and out[-1] == HIT_CLOSE:
            out[-1:] = [text[a:b], HIT_CLOSE]  # touching hits (CJK) read as one: **数据**
        else:
            out += [text[cursor:a], HIT_OPEN, text[a:b], HIT_CLOSE]
        cursor = b
    out.append(text[cursor:end_char])
    if end < len(words) - 1:
        out.append(ELLIPSIS)
    return "".join(out).strip()


def _merged(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Overlapping hits (one word matched by two terms) become one marked stretch."""
    merged: list[tuple[int, int]] = []
    for first, last in sorted(ranges):
        if merged and first <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], last))
        else:
            merged.append((first, last))
    return merged

"""Parse whatever a person or agent types into a search query that cannot fail.

The parser knows nothing about FTS5 syntax: it produces plain ``Term`` records
(words, phrase, prefix, exclusion) that a backend compiles into its own query
language. Every string is accepted; the worst outcome is an empty query.

User syntax (documented in the README):
    words         match word forms (deploy ~ deploys, deployed, deploying, deployment);
                  not every word has to match, memories matching more rank first
    "a phrase"    these words, adjacent, exactly as typed (no word forms)
    word*         any word starting with ``word``
    -word         leave out memories containing ``word`` (``--option`` is text to find)
Anything else (AND, OR, NOT, NEAR, parentheses, colons, ``C++``) is ordinary text.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

MAX_QUERY_CHARS = 500
MAX_TERMS = 8
MIN_ROOT_CHARS = 4

# Han, Hiragana, Katakana, Hangul and their compatibility blocks: scripts written
# without spaces between words, indexed one character per token.
CJK_CLASS = (
    "\u1100-\u11ff\u2e80-\u2fdf\u3040-\u30ff\u3100-\u312f\u3130-\u318f\u31a0-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\uff66-\uff9f"
    "\U00020000-\U0003134f"
)
CJK_RE = re.compile(f"[{CJK_CLASS}]")
WORD_RE = re.compile(rf"[{CJK_CLASS}]|[^\W_{CJK_CLASS}]+")
_CHUNK_RE = re.compile(r'"([^"]*)"?|(\S+)')

STOP_WORDS = frozenset(
    """
    a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing done down during
    each either else ever every few for from further get gets got had has have having he
    her here hers herself him himself his how i if in into is it its itself just let
    lets like may me might more most must my myself need no nor not now of off on once
    only or other ought our ours ourselves out over own please same shall she should so
    some such than that the their theirs them themselves then there these they this
    those through to too under until up upon us very was way we were what when where
    which while who whom whose why will with within without would yes yet you your yours
    yourself yourselves
    """.split()
)

# Longest first: the first suffix that leaves a root of MIN_ROOT_CHARS wins.
_SUFFIXES = (
    "ational",
    "ations",
    "ation",
    "ments",
    "ment",
    "ings",
    "ing",
    "ions",
    "ion",
    "ers",
    "er",
    "ies",
    "ied",
    "es",
    "ed",
    "ly",
    "s",
    "y",
    "e",
)


@dataclass(frozen=True, slots=True)
class Term:
    """One unit of a query.

    Attributes:
        words: the lower-cased words; more than one means they must be adjacent.
        exact: match these words only (a quoted phrase, or CJK); otherwise word forms match.
        prefix: the last word matches any word it starts (``word*``).
        negated: memories containing this term are left out.
        quoted: typed in quotes: the person asked for these very words.
    """

    words: tuple[str, ...]
    exact: bool = False
    prefix: bool = False
    negated: bool = False
    quoted: bool = False

    @property
    def is_stop_word(self) -> bool:
        return len(self.words) == 1 and not self.exact and self.words[0] in STOP_WORDS

    @property
    def weight(self) -> int:
        """A cheap stand-in for rarity: longer words tend to be rarer."""
        return sum(len(w) for w in self.words)


@dataclass(frozen=True, slots=True)
class ParsedQuery:
    terms: tuple[Term, ...]

    @property
    def positive(self) -> tuple[Term, ...]:
        """The terms to look for: stop words are dropped unless nothing else is left."""
        wanted = [t for t in self.terms if not t.negated]
        content = [t for t in wanted if not t.is_stop_word]
        chosen = content or wanted[:3]
        if len(chosen) > MAX_TERMS:
            keep = set(sorted(chosen, key=lambda t: -t.weight)[:MAX_TERMS])
            chosen = [t for t in chosen if t in keep]
        return tuple(chosen)

    @property
    def negative(self) -> tuple[Term, ...]:
        return tuple(t for t in self.terms if t.negated)

    @property
    def is_empty(self) -> bool:
        return not self.positive

    @property
    def quoted(self) -> bool:
        """Whether a phrase was typed in quotes: only memories holding it answer."""
        return any(t.quoted for t in self.positive)


def term_in(term: Term, words: tuple[str, ...]) -> bool:
    """Whether a text (its ``split_words``, split once for all the terms) holds ``term``
    as the search matches it: a phrase as typed, a prefix, or a word in any of its forms
    (its root, as the index's prefix query)."""
    if len(term.words) > 1 or term.exact:
        return " ".join(term.words) in " ".join(words)
    word = term.words[0]
    if term.prefix:
        return any(w.startswith(word) for w in words)
    root = word_root(word)
    if len(root) >= MIN_ROOT_CHARS and root.isalpha():
        return any(w.startswith(root) for w in words)
    return word in words or word + "s" in words


def split_words(text: str) -> tuple[str, ...]:
    """Lower-cased words as the index sees them; each CJK character is a word of its own."""
    return tuple(WORD_RE.findall(text.lower()))


def word_root(word: str) -> str:
    """A crude English root so that one prefix covers a word's forms.

    ``deploying`` -> ``deploy``, ``deployment`` -> ``deploy``, ``migrations`` -> ``migr``,
    ``formatting`` -> ``format`` (a doubled consonant is undone).
    Words with digits, CJK, or too short to cut safely come back unchanged.
    """
    if len(word) <= MIN_ROOT_CHARS or not word.isascii() or not word.isalpha():
        return word
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= MIN_ROOT_CHARS:
            root = word[: -len(suffix)]
            # formatting -> formatt -> format: a consonant doubled before the suffix
            doubled = root[-1] == root[-2] and root[-1] not in "aeiouls"
            if doubled and len(root) > MIN_ROOT_CHARS:
                root = root[:-1]
            return root
    return word


def parse_query(text: object, *, typing: bool = False) -> ParsedQuery:
    """Parse any input into a ParsedQuery; never raises.

    Args:
        text: what was typed; non-strings count as empty.
        typing: the user is still typing, so the last bare word is a prefix.
    """
    if not isinstance(text, str):
        return ParsedQuery(())
    text = text.encode("utf-8", "replace").decode("utf-8")[:MAX_QUERY_CHARS]
    # Accents typed as combining marks (NFD, e.g. pasted on macOS) join their letter,
    # or the word would be split at each accent.
    text = unicodedata.normalize("NFC", text)
    terms: list[Term] = []
    for match in _CHUNK_RE.finditer(text):
        quoted, bare = match.group(1), match.group(2)
        if quoted is not None:
            words = split_words(quoted)
            if words:
                terms.append(Term(words, exact=True, quoted=True))
            continue
        # "-word" leaves word out; "--option" (and "-" alone) is text to find
        negated = bare.startswith("-") and len(bare) > 1 and bare[1] != "-"
        prefix = bare.endswith("*")
        words = split_words(bare)
        if not words:
            continue
        has_cjk = any(CJK_RE.match(w) for w in words)
        terms.append(Term(words, exact=has_cjk, prefix=prefix and not has_cjk, negated=negated))
    if typing and terms and text[-1:].isalnum():
        last = terms[-1]
        if not last.negated and not last.exact and len(last.words[-1]) >= 3:
            terms[-1] = Term(last.words, prefix=True)
    return ParsedQuery(tuple(terms))

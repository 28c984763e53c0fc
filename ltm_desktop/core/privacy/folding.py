"""The comparison form: a text as a model reads it, for the screens to match against.

A model reads "Ig\\u200bnore previous instructions" (a zero-width space inside a word),
"Іgnore" (a Cyrillic І), "ＩＧＮＯＲＥ" (full-width) or "**Ignore** previous\\ninstructions"
as the instruction it spells; a regex over the typed characters does not. So the
instruction flagger (``core.injection``) matches against this form instead, built by:

- HTML read through: character references decoded (twice, for ``&amp;#105;``: the prompt
  shows a memory's ``<`` as ``&lt;``, which a model reads as ``<``), tags inside a word
  (``Ign<b></b>ore``, ``Ign<wbr>ore``) removed, a role tag (``<system>``) kept;
- Markdown backslash escapes read as the character (``\\#`` renders ``#``);
- removing what renders as nothing: format characters (Cf: zero-width space, joiners,
  word joiner, soft hyphen, bidi controls, tag characters) and the rest of Unicode's
  default-ignorable code points (variation selectors, the combining grapheme joiner);
  blank letters (Hangul fillers, the Braille blank) become spaces; one inside a word may
  be read as nothing too, so ``readings`` gives that form as well;
- full-width, mathematical and other compatibility forms as plain letters, and Latin
  look-alikes as the Latin letters (``core.homoglyphs``, TR39);
- the letters TR39 does not list read by their Unicode names: a small capital, a letter
  with a stroke or a hook as its base letter (``ɢ``, ``ø``, ``ɠ``, ``ƫ``), and the
  Cyrillic and Greek letters whose name and shape are one Latin letter (``т``, ``κ``);
- combining marks removed (accents, stacked "zalgo" marks), after NFKD;
- case folding (and look-alikes again: some are the lower case of a capital);
- whitespace collapsed; a line break inside a paragraph read as the space it renders as
  (a blank line, a list item, a quote or a heading still starts a new block);
- Markdown emphasis (``*``, ``_`` at a word's edge, ``~~``, backticks) and inline HTML
  comments removed.

The form is for comparison only: what was written is what is stored and shown. It is
built on every write and for every unreviewed memory a prompt is rendered with, so ASCII
text (most of it) skips the Unicode steps, and each step runs only when its characters
are there.
"""

from __future__ import annotations

import html
import re
import unicodedata
from typing import NamedTuple

from ltm_desktop.core.privacy.homoglyphs import latin

# Unicode's Default_Ignorable_Code_Point, plus the format characters (Cf) outside it.
IGNORABLE = re.compile(
    "[\u00ad\u034f\u061c\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f"
    "\ufe00-\ufe0f\ufeff\ufff0-\ufffb\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0000-\U000e0fff\u0600-\u0605\u06dd\u070f\u0890\u0891\u08e2\U000110bd"
    "\U000110cd\U00013430-\U0001343f]"
)
# Letters that render as a blank: a word boundary to a reader.
BLANK = re.compile("[\u115f\u1160\u3164\uffa0\u2800]")
_MARKS = frozenset({"Mn", "Me", "Cf"})
# Line breaks other than \n (\r\n is replaced first).
_BREAKS = re.compile("\r\n?|[\x1c\x1d\x1e\x85\u2028\u2029]")
# What starts a new Markdown block on the next line: there a line break is no space.
_BLOCK_START = re.compile(r"[-+*](?:\s|$)|\d{1,9}[.)](?:\s|$)|[>#|]|`{3}|~{3}")
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
_MARKUP = re.compile(r"[*`]+")  # emphasis and code spans, inside a word too
_UNDERSCORES = re.compile(r"_+")
_DOUBLE_SPACES = re.compile(r" {2,}")
# A blank letter between two letters: a space to some readers, nothing to others.
_BLANK_IN_WORD = re.compile(r"(?<=[^\W\d_])[\u115f\u1160\u3164\uffa0\u2800]+(?=[^\W\d_])")
# Tags between two letters: a model reads the word through them. A role tag (``<system>``,
# ``core.injection`` reads it) and a comment (its text is read too) are not removed.
_ROLE = r"\s*/?\s*(?:system|assistant|user|tool|function|developer|instructions?)\b"
_TAGS_IN_WORD = re.compile(
    rf"(?<=[^\W\d_])(?:<(?!{_ROLE})(?:[a-z/]|!(?!--))[^<>\n]{{0,200}}>)+(?=[^\W\d_])",
    re.IGNORECASE,
)
# A Markdown backslash escape: what renders is the character after it.
_ESCAPE = re.compile(r"\\(?=[!-/:-@\[-`{-~])")


class Folded(NamedTuple):
    """Both comparison forms of one text.

    Attributes:
        joined: as a rendered page reads: soft line breaks are spaces and HTML comments
            are gone (one could split a word).
        lines: every line break kept, and the text inside HTML comments (a model reads
            it; a rendered page hides it), for patterns that read a line's start.
    """

    joined: str
    lines: str
    hidden: bool = False  # there were HTML comments: ``lines`` has text ``joined`` lacks


def fold(text: str) -> str:
    """``text`` in the comparison form, lower case; never stored (``Folded.joined``)."""
    return folds(text).joined


def readings(text: str) -> tuple[Folded, ...]:
    """The comparison forms of each way a model may read ``text``: one, or two when a
    blank letter sits inside a word (``prev\\u3164ious``: read as a space, and as
    nothing)."""
    text = _markup(text)
    if not text.isascii() and _BLANK_IN_WORD.search(text):
        return _folds(text), _folds(_BLANK_IN_WORD.sub("", text))
    return (_folds(text),)


def folds(text: str) -> Folded:
    """Both comparison forms of ``text`` (a blank letter read as a space)."""
    return _folds(_markup(text))


def _markup(text: str) -> str:
    """``text`` with the markup a model reads through gone: character references decoded,
    tags inside a word removed, backslash escapes read as the character."""
    if "&" in text:
        decoded = html.unescape(text)
        if "&" in decoded and decoded != text:
            decoded = html.unescape(decoded)  # double-encoded: ``&amp;lt;``
        text = decoded
    if "<" in text:
        text = _TAGS_IN_WORD.sub("", text)
    if "\\" in text:
        text = _ESCAPE.sub("", text)
    return text


def _folds(text: str) -> Folded:
    letters = _letters(text)
    if "<!--" in letters or "-->" in letters:
        hidden = letters.replace("<!--", " ").replace("-->", " ")
        return Folded(_tidy(_join(_HTML_COMMENT.sub("", letters))), _tidy(_keep(hidden)), True)
    return Folded(_tidy(_join(letters)), _tidy(_keep(letters)))


def _letters(text: str) -> str:
    """The characters as read: compatibility forms, invisibles, marks, case, look-alikes;
    every line break as ``\\n``."""
    if text.isascii():
        return _breaks(text.lower())
    # Look-alikes first, each character as written (NFKD would make a Greek lunate sigma
    # a final sigma, no c); then the marks on what is left; then look-alikes again after
    # case folding (a Cyrillic В is a B, its lower case в is no b; and the other way).
    text = latin(BLANK.sub(" ", IGNORABLE.sub("", text)))
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if c.isascii() or unicodedata.category(c) not in _MARKS)
    return _breaks(latin(text.casefold()).lower().translate(_BY_NAME))


# Cyrillic and Greek letters whose name and shape are both one Latin letter (а, ο, ѕ ...
# are TR39's already; п is named "pe" but looks like n, so it is not here).
_NAMED_LETTERS = {
    "CYRILLIC": {"A": "a", "IE": "e", "O": "o", "ES": "s", "TE": "t", "KA": "k", "EM": "m"},
    "GREEK": {
        "ALPHA": "a",
        "BETA": "b",
        "EPSILON": "e",
        "IOTA": "i",
        "KAPPA": "k",
        "OMICRON": "o",
        "TAU": "t",
        "UPSILON": "u",
        "CHI": "x",
    },
}
_LATIN_NAME = re.compile(
    r"LATIN (?:SMALL |CAPITAL )?LETTER (?:SMALL CAPITAL )?([A-Z])(?: WITH .*)?"
)
_OTHER_NAME = re.compile(r"(CYRILLIC|GREEK) (?:SMALL|CAPITAL) LETTER ([A-Z]+)(?: WITH .*)?")


class _ByName(dict[int, str]):
    """A ``str.translate`` table, filled on first sight of each character: the base
    Latin letter a look-alike that TR39 does not list is named after, or the character
    itself."""

    def __missing__(self, code: int) -> str:
        char = chr(code)
        base = char
        if code > 0x7F and char.isalpha():
            name = unicodedata.name(char, "")
            latin_name = _LATIN_NAME.fullmatch(name)
            if latin_name:
                base = latin_name.group(1).lower()
            elif other := _OTHER_NAME.fullmatch(name):
                base = _NAMED_LETTERS[other.group(1)].get(other.group(2), char)
        self[code] = base
        return base


_BY_NAME = _ByName()


def _breaks(text: str) -> str:
    return _BREAKS.sub("\n", text) if _BREAKS.search(text) else text


def _lines(text: str) -> list[str]:
    """The lines, whitespace collapsed; a run of blank lines as one empty line."""
    lines: list[str] = []
    for raw in text.split("\n"):
        line = " ".join(raw.split())
        if line or (lines and lines[-1]):
            lines.append(line)
    if lines and not lines[-1]:
        lines.pop()
    return lines


def _keep(text: str) -> str:
    return "\n".join(_lines(text))


def _join(text: str) -> str:
    """Lines joined where Markdown joins them: within a paragraph."""
    lines = _lines(text)
    if not lines:
        return ""
    parts = [lines[0]]
    for before, line in zip(lines, lines[1:], strict=False):
        if not line:
            continue
        soft = before and not _BLOCK_START.match(line)
        parts.append(" " if soft else ("\n" if before else "\n\n"))
        parts.append(line)
    return "".join(parts)


def _tidy(text: str) -> str:
    """Without emphasis: ``*``, backticks and ``~~`` anywhere; ``_`` only at a word's edge
    (inside one it is part of a name: ``im_start``)."""
    if "*" in text or "`" in text:
        text = _MARKUP.sub("", text)
    if "~~" in text:
        text = text.replace("~~", "")
    if "_" in text:
        text = _UNDERSCORES.sub(lambda m: _edge_underscores(m, text), text)
    if "  " in text:
        text = _DOUBLE_SPACES.sub(" ", text)
    return text.strip()


def _edge_underscores(match: re.Match[str], text: str) -> str:
    start, end = match.span()
    inside = start > 0 and text[start - 1].isalnum() and end < len(text) and text[end].isalnum()
    return match.group() if inside else ""

"""The comparison form: a text as a model reads it, for the screens to match against.

A model reads "Ig\\u200bnore previous instructions" (a zero-width space inside a word),
"Іgnore" (a Cyrillic І), "ＩＧＮＯＲＥ" (full-width) or "**Ignore** previous\\ninstructions"
as the instruction it spells; a regex over the typed characters does not. So the
instruction flagger (``core.injection``) matches against this form instead, built by:

- removing what renders as nothing: format characters (Cf: zero-width space, joiners,
  word joiner, soft hyphen, bidi controls, tag characters) and the rest of Unicode's
  default-ignorable code points (variation selectors, the combining grapheme joiner);
  blank letters (Hangul fillers, the Braille blank) become spaces;
- full-width, mathematical and other compatibility forms as plain letters, and Latin
  look-alikes as the Latin letters (``core.homoglyphs``, TR39);
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

import re
import unicodedata
from typing import NamedTuple

from ltm_desktop.core.homoglyphs import latin

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


def folds(text: str) -> Folded:
    """Both comparison forms of ``text``."""
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
    return _breaks(latin(text.casefold()).lower())


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

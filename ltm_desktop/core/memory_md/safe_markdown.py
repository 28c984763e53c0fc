"""Markdown that a memory's text cannot break out of.

MEMORY.md and the prompt section are read by a model as one document. Each memory is one
block under its own ``## title`` heading; its text must stay inside that block whatever
it holds. So, outside code fences: a line that would be a heading (ATX ``#`` or a setext
underline) is escaped with a backslash, tag-like markup (``<system>``, ``</tool>``,
``<|im_start|>``) has its ``<`` written ``&lt;``; a fence the text opens is closed at the
end of its block; and inside fences, role tags are escaped the same way (a model reads
them there too). Nothing is removed: a person reading the file sees the memory's words.
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
# A heading may also open a blockquote's or a list item's content (``> # x``, ``- # x``).
_ATX = re.compile(r"^( {0,3}(?:(?:>|[*+-]|\d{1,9}[.)])[ \t]*)*)(#)")
_SETEXT = re.compile(r"^( {0,3})(=+|-+)[ \t]*$")
# ``<`` opening something a parser or a model could take for a tag: a name, ``/``, ``!``,
# ``?`` or ``|`` (chat templates' ``<|im_start|>``).
_TAG = re.compile(r"<(?=[A-Za-z/!?|])")
_ROLE_TAG = re.compile(
    r"<(?=\|"
    r"|/?\s*(?:system|assistant|user|human|tool|function|developer|instructions?|im_start|im_end)"
    r"\b)",
    re.IGNORECASE,
)


def escape_inline(text: str) -> str:
    """One line of text (a title) with tag-like markup escaped."""
    return _TAG.sub("&lt;", text)


def _lines(text: str) -> list[str]:
    """Lines as CommonMark ends them (a lone carriage return ends one too)."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _fence_closes(line: str, fence: str) -> bool:
    stripped = line.strip()
    return stripped.startswith(fence) and set(stripped) == {fence[0]}


def safe_block_text(text: str) -> str:
    """``text`` escaped so that it cannot start a heading or a tag, or leave a fence open."""
    out: list[str] = []
    fence: str | None = None
    previous_blank = True
    for line in _lines(text):
        if fence is not None:
            if _fence_closes(line, fence):
                fence = None
                out.append(line)
            else:
                out.append(_ROLE_TAG.sub("&lt;", line))
            previous_blank = False
            continue
        opening = _FENCE.match(line)
        if opening:
            fence = opening.group(1)
            out.append(_TAG.sub("&lt;", line))
            previous_blank = False
            continue
        line = _ATX.sub(r"\1\\\2", line)
        if not previous_blank:  # an underline after text would make that text a heading
            line = _SETEXT.sub(r"\1\\\2", line)
        out.append(_TAG.sub("&lt;", line))
        previous_blank = not line.strip()
    if fence is not None:
        out.append(fence)
    return "\n".join(out)


def open_fence(text: str) -> str | None:
    """The fence left open at the end of ``text`` (rendered Markdown), or None."""
    fence: str | None = None
    for line in _lines(text):
        if fence is not None:
            if _fence_closes(line, fence):
                fence = None
            continue
        opening = _FENCE.match(line)
        if opening:
            fence = opening.group(1)
    return fence

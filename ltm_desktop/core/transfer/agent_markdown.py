"""Agents' Markdown memory files (CLAUDE.md, AGENTS.md, GEMINI.md, Hermes, Cline): each
top-level bullet, paragraph or code block a memory, the headings above it its tags."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ltm_desktop.core import rules
from ltm_desktop.core.errors import InvalidInput
from ltm_desktop.core.records import MemoryDraft
from ltm_desktop.core.transfer.parsed import Entry, ParsedFile, fail

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^(?:[-*+]|\d+[.)])\s+(.*)$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_SLUG = re.compile(r"[^a-z0-9]+")


def heading_tag(heading: str) -> str:
    """A heading as a tag: lower case, words joined by hyphens, cut to the tag limit."""
    slug = _SLUG.sub("-", heading.lower()).strip("-")
    return slug[: rules.MAX_TAG_CHARS].strip("-")


@dataclass(slots=True)
class _Block:
    line: int
    lines: list[str]
    tags: tuple[str, ...]


def parse_agent_markdown(
    parsed: ParsedFile, text: str, extra_tags: tuple[str, ...] = (), category: str = "knowledge"
) -> None:
    """Agent memory files: each top-level bullet is a memory (with its indented lines
    and sub-bullets), and so is each paragraph or fenced code block; the headings above
    it (below the document's ``#`` title) become its tags."""
    headings: list[tuple[int, str]] = []
    blocks: list[_Block] = []
    current: _Block | None = None
    fence: str | None = None
    after_blank = False
    for number, raw in enumerate(text.splitlines(), start=1):
        if fence is not None:
            assert current is not None
            current.lines.append(raw)
            if raw.strip().startswith(fence):
                fence = None
            continue
        tags = tuple(tag for level, h in headings if level > 1 and (tag := heading_tag(h)))
        opening = _FENCE.match(raw)
        heading = _HEADING.match(raw)
        bullet = _BULLET.match(raw)
        if heading:
            level = len(heading.group(1))
            headings = [(lv, h) for lv, h in headings if lv < level] + [(level, heading[2])]
            current = None
        elif not raw.strip():
            after_blank = True
            continue
        elif bullet:
            current = _Block(number, [bullet.group(1)], tags)
            blocks.append(current)
        elif current is None or (
            not raw.startswith((" ", "\t"))
            and (after_blank or opening is not None)
            and not (opening and current.lines[-1].endswith(":"))
        ):  # a paragraph or code block of its own; indented lines belong to the bullet,
            # and a code block belongs to the text that introduces it ("Run:")
            current = _Block(number, [raw.strip()], tags)
            blocks.append(current)
        else:
            current.lines.append(raw.strip())
        if opening and not heading:
            fence = opening.group(1)
        after_blank = False
    if fence is not None and current is not None:
        raise fail(parsed, current.line, "a code block that is never closed")
    for block in blocks:
        try:
            tags = (*extra_tags, *block.tags)[-rules.MAX_TAGS :]
            draft = rules.validate_draft(
                MemoryDraft("\n".join(block.lines), category=category, tags=tags)
            )
        except InvalidInput as exc:
            raise fail(parsed, block.line, str(exc)) from None
        parsed.entries.append(Entry(block.line, draft=draft))

"""One memory as MEMORY.md and the prompt section show it: ``## title`` over its text.

Its own module so that the precis (``core.precis``), which renders it, and the
instruction flagger (``core.injection``), which screens what a model will read, share
one rendering: a title becomes a heading over the text ("## Instructions"), and a screen
of ``title + content`` that did not see that heading let such a memory through.
"""

from __future__ import annotations

from ltm_desktop.core.clean_text import clean_text
from ltm_desktop.core.memory_md.safe_markdown import escape_inline, safe_block_text
from ltm_desktop.core.records import Category, Memory


def heading(memory: Memory) -> str:
    """A block's heading: the title, tagged with the category unless it is plain knowledge,
    so an agent tells a preference, a task or a skill from a fact at a glance."""
    title = escape_inline(clean_text(memory.title))  # clean already, unless stored before
    if memory.category is Category.KNOWLEDGE:
        return f"## {title}"
    return f"## {title} ({memory.category.value})"


def render_block(memory: Memory) -> str:
    """One memory's block: its heading, then its text, which cannot leave the block."""
    return f"{heading(memory)}\n\n{safe_block_text(clean_text(memory.content))}"

"""What the model is asked to merge: the group's memories, credentials redacted, and the
shape of the one memory to answer with (or ``{"same": false}``)."""

from __future__ import annotations

from collections.abc import Sequence

from ltm_desktop.core.privacy.secrets import redact
from ltm_desktop.core.records import Memory

SYSTEM_PROMPT = """\
You merge the long-term memories of an AI coding agent. You are given a few memories \
that were found to be alike. If they all say the same thing in different words, write \
the ONE memory that replaces them: keep every concrete detail any of them holds \
(commands, paths, names, versions, reasons), drop the repetition, and never repeat a \
secret or credential. If they do not all say the same thing (different tools, \
versions, environments, languages, or one contradicts another), do not merge them.
Reply with one JSON object and nothing else:
- to merge: {"title": a short title (at most 80 characters), "content": the merged \
memory in one to three self-contained sentences, "category": one of "preference", \
"knowledge", "skill", "task", "tags": a list of short lower-case tags};
- not to merge: {"same": false}."""


def render_memory(number: int, memory: Memory, max_chars: int) -> str:
    """One memory as the model sees it, its text redacted, then cut to ``max_chars``."""
    content = redact(memory.content)
    if len(content) > max_chars:
        content = content[: max(0, max_chars - 1)] + "…"
    tags = ", ".join(memory.tags) or "(none)"
    return (
        f'<memory n="{number}">\nTitle: {redact(memory.title)}\n'
        f"Category: {memory.category.value}\nTags: {redact(tags)}\n\n{content}\n</memory>"
    )


def build_messages(members: Sequence[Memory], max_input_chars: int) -> list[dict[str, str]]:
    """Chat messages for an OpenAI-compatible endpoint: at most ``max_input_chars`` of
    memory text in all (``[extractor] max_input_chars``), shared out evenly."""
    each = max(200, max_input_chars // max(1, len(members)))
    listed = "\n\n".join(render_memory(n, m, each) for n, m in enumerate(members, start=1))
    user = (
        f"The {len(members)} memories (text that looked like a credential shows as "
        f"[redacted ...]):\n\n{listed}\n\nReply with the JSON object."
    )
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]

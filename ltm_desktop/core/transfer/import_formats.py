"""The memory files of other agents, read as memories:

- ``hermes``: Hermes Agent's ``~/.hermes/memories/MEMORY.md`` and ``USER.md``, entries
  separated by a line holding only ``§``; what USER.md says about the user is a
  ``preference``. They are the agent's memory across projects: global by default.
- ``cline``: a Cline memory bank (``memory-bank/projectbrief.md``, ``techContext.md``...):
  Markdown split like CLAUDE.md, each memory tagged with its file (``tech-context``); the
  scope is the project holding ``memory-bank/``.
- ``claude-auto-memory``: Claude Code's ``~/.claude/projects/<project>/memory/*.md``: one
  memory per topic file, its YAML front matter's ``description`` (or ``name``) the title
  and its ``type`` a tag (``user`` and ``feedback`` are preferences). ``MEMORY.md`` there
  is only an index of those files, so it imports nothing. The folder's name does not say
  the project reliably: give ``--cwd`` or ``--project``.
"""

from __future__ import annotations

import re
from pathlib import Path

from ltm_desktop.core import rules
from ltm_desktop.core.errors import InvalidInput
from ltm_desktop.core.records import Category, MemoryDraft
from ltm_desktop.core.transfer.agent_markdown import heading_tag, parse_agent_markdown
from ltm_desktop.core.transfer.parsed import Entry, ParsedFile, fail

HERMES_FILES = {"MEMORY.md", "USER.md"}
_FRONT_KEY = re.compile(r"^\s*([A-Za-z_][\w-]*)\s*:\s*(.*)$")
PREFERENCE_TYPES = {"user", "feedback"}


def detect_agent_format(path: Path, text: str) -> str | None:
    """The agent memory format ``path`` looks like, or None (then: plain Markdown)."""
    parts = path.parts
    if path.parent.name == "memory-bank":
        return "cline"
    if path.parent.name == "memories" and ".hermes" in parts:
        return "hermes"
    if path.parent.name == "memory" and ".claude" in parts:
        return "claude-auto-memory"
    if path.name in HERMES_FILES and any(line.strip() == "§" for line in text.splitlines()):
        return "hermes"
    return None


def parse_agent_format(parsed: ParsedFile, text: str) -> None:
    path = Path(parsed.path)
    if parsed.format == "hermes":
        _parse_hermes(parsed, text, path)
    elif parsed.format == "cline":
        parsed.default_scope = "parent"
        parse_agent_markdown(parsed, text, extra_tags=(heading_tag(_words(path.stem)),))
    elif parsed.format == "claude-auto-memory":
        parsed.default_scope = "none"
        if path.name != "MEMORY.md":  # the index of the topic files
            _parse_topic_file(parsed, text)


def _words(stem: str) -> str:
    """``techContext`` -> ``tech Context`` (so the tag reads ``tech-context``)."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", stem)


def _parse_hermes(parsed: ParsedFile, text: str, path: Path) -> None:
    parsed.default_scope = "global"
    category = Category.PREFERENCE if path.name == "USER.md" else Category.KNOWLEDGE
    start, lines = 1, []
    for number, raw in enumerate([*text.splitlines(), "§"], start=1):
        if raw.strip() != "§":
            lines.append(raw)
            continue
        content = "\n".join(lines).strip()
        if content:
            try:
                draft = rules.validate_draft(MemoryDraft(content, category=category))
            except InvalidInput as exc:
                raise fail(parsed, start, str(exc)) from None
            parsed.entries.append(Entry(start, draft=draft, project_id=None))
        start, lines = number + 1, []


def _front_matter(parsed: ParsedFile, text: str) -> tuple[dict[str, str], str, int]:
    """(keys, body, the body's first line) of a file that may open with ``---`` YAML
    front matter (flat ``key: value`` lines; ``metadata:`` children count as keys)."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return {}, text, 1
    keys: dict[str, str] = {}
    for number, raw in enumerate(lines[1:], start=2):
        if raw.strip() == "---":
            return keys, "\n".join(lines[number:]), number + 1
        match = _FRONT_KEY.match(raw)
        if match and match.group(2):
            keys[match.group(1).lower()] = match.group(2).strip().strip("\"'")
    raise fail(parsed, 1, "the front matter (---) is never closed")


def _parse_topic_file(parsed: ParsedFile, text: str) -> None:
    keys, body, first = _front_matter(parsed, text)
    kind = keys.get("type", "").lower()
    title = keys.get("description") or keys.get("name")
    category = Category.PREFERENCE if kind in PREFERENCE_TYPES else Category.KNOWLEDGE
    tags = [tag for tag in (heading_tag(kind), "claude-auto-memory") if tag]
    content = body.strip()
    if not content:
        return
    try:
        title = None if title is None else title[: rules.MAX_TITLE_CHARS]
        draft = rules.validate_draft(MemoryDraft(content, title, category, tags=tags))
    except InvalidInput as exc:
        raise fail(parsed, first, str(exc)) from None
    parsed.entries.append(Entry(first, draft=draft))

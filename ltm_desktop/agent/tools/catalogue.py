"""The tool catalogue: every memory tool defined once.

Each entry has the name, a description written for a model, the JSON Schema of its
arguments, its annotations and the function that runs it. The MCP server, the exported
definitions (``ltm-desktop tools``), the Python toolbox and the docs are all generated
from ``CATALOGUE``; nothing else describes a tool.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ltm_desktop.agent.tools import handlers
from ltm_desktop.core.records import Category
from ltm_desktop.core.rules import MAX_CONTENT_CHARS, MAX_TAGS, MAX_TITLE_CHARS, MAX_TTL_DAYS
from ltm_desktop.core.stale.named_files import MAX_FILES, MAX_PATH_CHARS

Handler = Callable[[handlers.ToolAccess, str, dict[str, Any]], handlers.Reply]
CATEGORIES = [c.value for c in Category]
SEARCH_LIMIT = 20


@dataclass(frozen=True, slots=True)
class Hints:
    """MCP tool annotations: what a client may assume about a tool's effects."""

    read_only: bool
    destructive: bool
    idempotent: bool
    open_world: bool = False

    def as_mcp(self) -> dict[str, bool]:
        return {
            "readOnlyHint": self.read_only,
            "destructiveHint": self.destructive,
            "idempotentHint": self.idempotent,
            "openWorldHint": self.open_world,
        }


@dataclass(frozen=True, slots=True)
class ToolSpec:
    name: str
    title: str
    description: str
    schema: dict[str, Any]
    hints: Hints
    handler: Handler


def _object(properties: dict[str, Any], required: Sequence[str] = ()) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = list(required)
    schema["additionalProperties"] = False
    return schema


def _text(description: str, max_length: int | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string", "description": description}
    if max_length is not None:
        schema["maxLength"] = max_length
    return schema


def _integer(description: str, low: int, high: int, default: int | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {
        "type": "integer",
        "description": description,
        "minimum": low,
        "maximum": high,
    }
    if default is not None:
        schema["default"] = default
    return schema


def _ids(description: str) -> dict[str, Any]:
    return {
        "type": "array",
        "items": {"type": "string"},
        "maxItems": 100,
        "description": description,
    }


CONTENT = _text(
    "The memory itself: one self-contained fact, decision, preference or how-to, written so "
    "that it makes sense on its own in a later session.",
    MAX_CONTENT_CHARS,
)
FILES: dict[str, Any] = {
    "type": "array",
    "items": {"type": "string", "minLength": 1, "maxLength": MAX_PATH_CHARS},
    "maxItems": MAX_FILES,
    "description": "The project's files this memory is about, relative to the project "
    "(absolute paths inside it are accepted). When one is deleted the user is asked whether "
    "the memory still holds.",
}
MEMORY_FIELDS: dict[str, Any] = {
    "title": _text("A short title (default: the content's first line).", MAX_TITLE_CHARS),
    "category": {
        "type": "string",
        "enum": CATEGORIES,
        "description": "knowledge (facts, decisions; the default), preference (how the user "
        "wants things), task (something to do later) or skill (how to do something).",
    },
    "importance": _integer(
        "0-10 (default 0, unless the user set another); the most important memories are "
        "shown at the start of every session.",
        0,
        10,
    ),
    "tags": {
        "type": "array",
        "items": {"type": "string"},
        "maxItems": MAX_TAGS,
        "description": "Lower-case keywords that help find it again.",
    },
    "ttl_days": _integer(
        "Forget it automatically this many days after its last update; 0 = never (the default).",
        0,
        MAX_TTL_DAYS,
    ),
    "files": FILES,
}
QUERY = _text(
    'What you want to remember: a few keywords or a plain question. Supports "exact '
    'phrases", prefix* and -excluded words.'
)
LIMIT = _integer("How many results at most (1-20).", 1, SEARCH_LIMIT, default=5)
CATALOGUE: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="memory_write",
        title="Write to long-term memory",
        description=(
            "Add, update or remove a memory in your long-term memory for this project "
            "(it persists across sessions and is shown to the user). "
            "action=add stores `content` (a near-duplicate of an existing memory replaces it; "
            "the same text again only refreshes it); the reply names the status "
            "(created, deduplicated or superseded) and the memory's id. "
            "action=update changes only the fields you give of memory `id`. "
            "action=remove moves memory `id` to the trash (the user can restore it). "
            "Save durable things: decisions, conventions, the user's preferences, how-tos; "
            "not secrets, not what only matters for the current task."
        ),
        schema=_object(
            {
                "action": {
                    "type": "string",
                    "enum": ["add", "update", "remove"],
                    "description": "add a new memory, update one, or remove one.",
                },
                "content": CONTENT,
                **MEMORY_FIELDS,
                "id": _text("The memory to update or remove (mem_...), from a search."),
            },
            ["action"],
        ),
        # not destructive: an update keeps the old version in the history, a removal goes
        # to the trash; both are undone from the app (Codex refuses destructive tools)
        hints=Hints(read_only=False, destructive=False, idempotent=False),
        handler=handlers.memory_write,
    ),
    ToolSpec(
        name="memory_search",
        title="Search long-term memory",
        description=(
            "Search your long-term memory: the memories of this project and the global ones "
            "(the user's general preferences), best match first, as a JSON array ([] when "
            "nothing matches) of "
            "{id, title, content, category, importance, tags, updated_at, score, matched}; "
            "matched is words, some_words or meaning (found by meaning, sharing no word). "
            "Search before answering questions about this project's conventions, past "
            "decisions or the user's preferences, and before saving, to update instead of "
            "duplicating."
        ),
        schema=_object({"query": QUERY, "limit": LIMIT}, ["query"]),
        hints=Hints(read_only=True, destructive=False, idempotent=True),
        handler=handlers.memory_search,
    ),
    ToolSpec(
        name="memory_save",
        title="Save to long-term memory",
        description=(
            "Save something worth remembering in later sessions (a decision, a convention, "
            "a preference of the user, a how-to) to this project's long-term memory. "
            "The reply names the status (created, deduplicated or superseded) and the id."
        ),
        schema=_object(
            {
                "content": CONTENT,
                "type": {
                    "type": "string",
                    "enum": sorted(handlers.SAVE_TYPES),
                    "description": "What kind of memory: knowledge (default; also fact, "
                    "decision, architecture, bug, note), preference, task (also todo) or "
                    "skill (also pattern, workflow, howto).",
                },
                "files": FILES,
            },
            ["content"],
        ),
        hints=Hints(read_only=False, destructive=False, idempotent=False),
        handler=handlers.memory_save,
    ),
    ToolSpec(
        name="memory_recall",
        title="Recall memories and past sessions",
        description=(
            "Recall what is known about something: memories and observations of past "
            "sessions (what the user asked and what was done) of this project and the "
            "global scope, merged and ranked, as a JSON array ([] when nothing matches) of "
            "{kind, id, title, text, score, ...}."
        ),
        schema=_object({"query": QUERY, "limit": LIMIT}, ["query"]),
        hints=Hints(read_only=True, destructive=False, idempotent=True),
        handler=handlers.memory_recall,
    ),
    ToolSpec(
        name="memory_forget",
        title="Forget memories or observations",
        description=(
            "Forget memories (mem_...) and observations (obs_...) of this project or the "
            "global scope, by id: they leave every search. Memories go to the trash, where "
            "the user can restore them. Ids of other projects are refused, by name."
        ),
        schema=_object(
            {
                "memoryIds": _ids("Ids of memories to forget."),
                "observationIds": _ids("Ids of observations to forget."),
            }
        ),
        hints=Hints(read_only=False, destructive=True, idempotent=True),
        handler=handlers.memory_forget,
    ),
)
BY_NAME = {spec.name: spec for spec in CATALOGUE}
DEFAULT_TOOLS = ("memory_write", "memory_search")


class UnknownTool(ValueError):
    """A tool list names a tool that does not exist."""


def select(names: str | Sequence[str] | None) -> list[ToolSpec]:
    """The tools of a ``--tools`` value: None (the defaults), ``all``, or a comma list."""
    if names is None:
        wanted: list[str] = list(DEFAULT_TOOLS)
    elif isinstance(names, str):
        if names.strip() == "all":
            return list(CATALOGUE)
        wanted = [n.strip() for n in names.split(",") if n.strip()]
    else:
        wanted = list(names)
    if not wanted:
        raise UnknownTool("no tools named; give `all` or a comma list such as memory_search")
    unknown = [n for n in wanted if n not in BY_NAME]
    if unknown:
        raise UnknownTool(
            f"unknown tool {unknown[0]!r}; the tools are {', '.join(BY_NAME)} (or `all`)"
        )
    return [BY_NAME[n] for n in dict.fromkeys(wanted)]

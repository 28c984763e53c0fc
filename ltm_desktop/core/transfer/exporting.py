"""Export: every memory of some scopes, streamed as JSONL or Markdown.

Memories are read a page at a time (oldest first), so exporting any number of them holds
one page in memory. A memory added while an export runs is in it if its page had not been
read yet; the export is not a snapshot (``backup`` is).
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from ltm_desktop.core.records import Category, ListQuery, Memory, Project
from ltm_desktop.core.transfer import jsonl_format as transfer_format
from ltm_desktop.core.transfer.format_names import EXPORT_FORMATS, MARKER

if TYPE_CHECKING:
    from ltm_desktop.core.service import MemoryService

PAGE = 500
FORMATS = EXPORT_FORMATS
Progress = Callable[[int], None]  # memories written so far


def iter_memories(
    service: MemoryService,
    project_id: str,
    *,
    include_removed: bool,
    category: Category | None = None,
) -> Iterator[Memory]:
    """The scope's memories (expired ones included), oldest first, a page at a time."""
    offset = 0
    while True:
        query = ListQuery(
            category=category,
            include_disabled=include_removed,
            include_expired=True,
            order_by="created_at",
            descending=False,
            limit=PAGE,
            offset=offset,
        )
        page = service.list_memories(project_id, query)
        yield from page
        if len(page) < PAGE:
            return
        offset += PAGE


def _line(out: TextIO, values: dict[str, Any]) -> None:
    out.write(json.dumps(values, ensure_ascii=False, separators=(",", ":")) + "\n")


def write_jsonl(
    service: MemoryService,
    scopes: Sequence[Project],
    out: TextIO,
    *,
    app_version: str,
    include_removed: bool = False,
    with_history: bool = False,
    progress: Progress | None = None,
) -> int:
    """Write the header, then each scope and its memories; returns how many memories."""
    _line(out, transfer_format.header(app_version, service.store.schema_version, service.now()))
    count = 0
    for project in scopes:
        _line(out, transfer_format.project_record(project))
        for memory in iter_memories(service, project.project_id, include_removed=include_removed):
            history = service.history.memory(memory.id) if with_history else None
            _line(out, transfer_format.memory_record(memory, history))
            count += 1
            if progress is not None and count % PAGE == 0:
                progress(count)
    return count


def _day(at: float | None) -> str:
    if at is None:
        return "-"
    return dt.datetime.fromtimestamp(at, dt.UTC).strftime("%Y-%m-%d")


def _markdown_memory(memory: Memory) -> str:
    meta = {
        "id": memory.id,
        "project_id": memory.project_id,
        "category": memory.category.value,
        "importance": memory.importance,
        "tags": list(memory.tags),
        "ttl_days": memory.ttl_days,
        "created_at": memory.created_at,
        "updated_at": memory.updated_at,
        "source": memory.source,
        "disabled": memory.disabled,
    }
    facts = [f"importance {memory.importance}", f"updated {_day(memory.updated_at)}"]
    if memory.tags:
        facts.append("tags: " + ", ".join(memory.tags))
    if memory.disabled:
        facts.append("removed")
    marker = MARKER + json.dumps(meta, ensure_ascii=False).replace("--", "\\u002d-") + " -->"
    return f"### {memory.title}\n\n{memory.content}\n\n{marker}\n*{' · '.join(facts)}*\n\n"


def write_markdown(
    service: MemoryService,
    scopes: Sequence[Project],
    out: TextIO,
    *,
    include_removed: bool = False,
    progress: Progress | None = None,
) -> int:
    """One document: a ``#`` section per scope, a ``##`` per category, a ``###`` per memory
    (its text, then a one-line comment with its metadata for ``import``)."""
    count = 0
    for project in scopes:
        out.write(f"# {project.name}\n\n")
        if project.path:
            out.write(f"Project directory: `{project.path}`\n\n")
        for category in Category:
            heading = False
            for memory in iter_memories(
                service, project.project_id, include_removed=include_removed, category=category
            ):
                if not heading:
                    out.write(f"## {category.value}\n\n")
                    heading = True
                out.write(_markdown_memory(memory))
                count += 1
                if progress is not None and count % PAGE == 0:
                    progress(count)
    return count

"""What reading an import file yields: its entries (a full record, or a draft for the
normal add) and the scopes it names; and the failure that names the file's line."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ltm_desktop.core.errors import LtmError
from ltm_desktop.core.records import Memory, MemoryDraft, Project


class ImportFailed(LtmError):
    """A file that cannot be imported; nothing of it was written."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One memory found in a file: a full record (JSONL) or a draft for the normal add."""

    line: int
    draft: MemoryDraft | None = None
    record: Memory | None = None
    project_id: str | None = None  # the scope the file names for it, if it names one


@dataclass(slots=True)
class ParsedFile:
    path: str
    format: str
    entries: list[Entry] = field(default_factory=list)
    projects: list[Project] = field(default_factory=list)  # scopes the file describes
    # where entries without a scope go when none is given: "folder" (the file's own, a
    # repo's CLAUDE.md), "parent" (its folder's parent: a Cline memory-bank/), "global", or
    # "none" (the caller must say)
    default_scope: str = "folder"


def fail(parsed: ParsedFile, line: int, problem: str) -> ImportFailed:
    return ImportFailed(f"{parsed.path} line {line}: {problem}")


def describe_entry(entry: Entry) -> dict[str, Any]:
    """What a dry run lists about an entry."""
    if entry.record is not None:
        return {"line": entry.line, "id": entry.record.id, "title": entry.record.title}
    assert entry.draft is not None
    return {"line": entry.line, "title": entry.draft.title}

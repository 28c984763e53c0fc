"""Light, comparable row records: what a table needs of a memory, without its full text."""

from __future__ import annotations

from dataclasses import dataclass

from ltm_desktop.core.privacy.injection import flag_reason
from ltm_desktop.core.records import Memory

PREVIEW_CHARS = 240


@dataclass(frozen=True, slots=True)
class MemoryRow:
    """One memory as a table row; comparing two tells whether the row must repaint."""

    id: str
    project_id: str
    title: str
    category: str
    importance: int
    tags: tuple[str, ...]
    created_at: float
    updated_at: float
    last_used_at: float | None
    use_count: int
    source: str
    ttl_days: int | None
    disabled: bool
    disabled_at: float | None
    superseded_by: str | None
    expired: bool
    preview: str
    flagged: str | None = None  # why it waits for approval before MEMORY.md (core.injection)
    # who brought it in, on which machine (its created event; read for the "New" filter)
    person: str | None = None
    machine: str | None = None

    @classmethod
    def of(cls, memory: Memory, now: float) -> MemoryRow:
        preview = memory.content[:PREVIEW_CHARS]
        if len(memory.content) > PREVIEW_CHARS:
            preview += "…"
        return cls(
            id=memory.id,
            project_id=memory.project_id,
            title=memory.title,
            category=memory.category.value,
            importance=memory.importance,
            tags=memory.tags,
            created_at=memory.created_at,
            updated_at=memory.updated_at,
            last_used_at=memory.last_used_at,
            use_count=memory.use_count,
            source=memory.source,
            ttl_days=memory.ttl_days,
            disabled=memory.disabled,
            disabled_at=memory.disabled_at,
            superseded_by=memory.superseded_by,
            expired=memory.is_expired(now),
            preview=preview,
            flagged=flag_reason(memory),
        )

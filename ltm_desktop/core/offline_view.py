"""Memories as this machine sees them while the shared database cannot be reached: the
outbox's read cache of the scopes used here, with the queued writes applied over it (an
agent, and the person in the app, see their own queued writes). The API's offline answers
(``api.offline``) and the app's memory list read through here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, TypeVar

from ltm_desktop.core import rules
from ltm_desktop.core.errors import DatabaseUnreachable, NotFound
from ltm_desktop.core.offline import Offline, QueuedKind, QueuedWrite
from ltm_desktop.core.records import Category, ListQuery, Memory, Project, SearchFilter

T = TypeVar("T")


def queued_memory(write: QueuedWrite) -> Memory:
    """The memory a queued add makes (as its acknowledgement shows it)."""
    fields = write.fields
    content = str(fields["content"])
    return Memory(
        id=write.memory_id,
        project_id=write.project_id,
        title=str(fields.get("title") or ""),
        content=content,
        category=Category(fields.get("category", Category.KNOWLEDGE.value)),
        importance=int(fields.get("importance") or 0),
        tags=tuple(fields.get("tags") or ()),
        signature=rules.content_signature(content),
        created_at=write.queued_at,
        updated_at=write.queued_at,
        last_used_at=None,
        use_count=0,
        ttl_days=fields.get("ttl_days"),
        disabled=False,
        source=write.actor,
        superseded_by=None,
        files=tuple(str(f) for f in fields.get("files") or ()),
    )


def applied(memory: Memory | None, write: QueuedWrite) -> Memory | None:
    """``memory`` as it will be once ``write`` is replayed (None: not known here)."""
    if write.kind is QueuedKind.ADD:
        return queued_memory(write)
    if memory is None:
        return None
    if write.kind is QueuedKind.UPDATE:
        clean = rules.validate_changes(write.fields)
        return replace(memory, **clean, updated_at=write.queued_at)
    disabled = write.kind is QueuedKind.REMOVE
    return replace(memory, disabled=disabled, updated_at=write.queued_at)


def visible_memories(offline: Offline, project_id: str) -> dict[str, Memory]:
    """A scope's memories as this machine sees them: the cache, then the queued writes."""
    found = {m.id: m for m in offline.cached(project_id)}
    for write in offline.queued(project_id):
        changed = applied(found.get(write.memory_id), write)
        if changed is not None:
            found[write.memory_id] = changed
    return found


def visible_memory(offline: Offline, memory_id: str) -> tuple[Memory, bool]:
    """The memory as this machine sees it, and whether a queued add made it.

    Raises:
        NotFound: neither the cache nor the outbox has it.
    """
    memory = offline.cached_memory(memory_id)
    queued_add = False
    for write in offline.queued():
        if write.memory_id == memory_id:
            memory = applied(memory, write)
            queued_add = queued_add or write.kind is QueuedKind.ADD
    if memory is None:
        raise NotFound(f"{memory_id} (offline: not in this machine's read cache)")
    return memory, queued_add


def _order_key(order_by: str) -> Callable[[Memory], Any]:
    """A sort key close to the stores' orders (``store.memory_reads.ORDERINGS``): the
    field, then the newest change; a memory without the field (never used) sorts low."""

    def key(memory: Memory) -> Any:
        value: Any = getattr(memory, order_by, None)
        if order_by == "disabled_at":
            value = memory.updated_at if memory.disabled else None
        elif order_by in ("title", "category", "source"):
            value = str(value).casefold()
        return (value is not None, value if value is not None else 0, memory.updated_at)

    return key


def cached_list(offline: Offline, project_id: str, query: ListQuery, now: float) -> list[Memory]:
    """A scope's list as this machine sees it, every match in order: ``list_memories``'s
    filters and orders over ``visible_memories`` (at most the memories the outbox mirrors
    per scope, so the work is bounded); the caller takes its page
    (``query.offset``/``limit`` are not applied)."""
    admits = SearchFilter(
        category=None if query.category is None else str(query.category),
        tag=query.tag,
        include_disabled=query.include_disabled or query.only_disabled,
        include_expired=query.include_expired,
        new_since=query.new_since,
    ).admits
    found = [
        m
        for m in visible_memories(offline, project_id).values()
        if admits(m, now) and (m.disabled or not query.only_disabled)
    ]
    found.sort(key=_order_key(query.order_by), reverse=query.descending)
    return found


def cached_projects(offline: Offline, now: float) -> list[tuple[Project, int]]:
    """The scopes this machine mirrors with their active memories as seen here
    (``MemoryService.projects``'s shape)."""
    found = []
    for project in offline.cached_projects():
        memories = visible_memories(offline, project.project_id).values()
        active = sum(1 for m in memories if not m.disabled and not m.is_expired(now))
        found.append((project, active))
    return found


def online_or_cached(offline: Offline, online: Callable[[], T], cached: Callable[[], T]) -> T:
    """``online()``, or ``cached()`` while the shared database cannot be reached: known
    already, or found now by ``online`` (the outbox then queues writes until it answers).
    Without an outbox (SQLite) ``online`` alone answers, and its errors are raised."""
    if offline.is_offline():
        return cached()
    try:
        return online()
    except DatabaseUnreachable as exc:
        if not offline.available:
            raise
        offline.unreachable(str(exc))
        return cached()

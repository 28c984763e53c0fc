"""One scope's memories: add, read, edit, trash and restore, list, history, stale, expiry."""

from __future__ import annotations

from typing import Annotated, Any, TypedDict, Unpack

from ltm_desktop.api import serialize
from ltm_desktop.api.call import Call
from ltm_desktop.api.conflicts import Version
from ltm_desktop.api.params import Between, Edits, Id
from ltm_desktop.api.registry import method
from ltm_desktop.api.scopes import Scope
from ltm_desktop.api.shapes import AddResultShape, AuditEventShape, MemoryPageShape, MemoryShape
from ltm_desktop.core import rules
from ltm_desktop.core.records import ListQuery, MemoryDraft
from ltm_desktop.core.search.retrieval import MAX_SEARCH_LIMIT

MAX_OFFSET = 10_000_000
Limit = Annotated[int, Between(1, MAX_SEARCH_LIMIT)]
Offset = Annotated[int, Between(0, MAX_OFFSET, f"must be between 0 and {MAX_OFFSET:,}")]


class OneMemory(TypedDict):
    memory: MemoryShape


@method("memory.add", writes=True)
def memory_add(
    call: Call,
    scope: Scope,
    content: Any,
    title: Any = None,
    category: Any = "knowledge",
    importance: Any = None,  # None: [memory] default_importance
    tags: Any = (),
    ttl_days: Any = None,
    files: Any = (),
) -> AddResultShape:
    draft = MemoryDraft(
        content=content,
        title=title,
        category=category,
        importance=importance,
        tags=tags,
        ttl_days=ttl_days,
        files=files,
    )
    # absolute files are made relative to the cwd (Scope checked that it is a string)
    root = rules.normalize_cwd(scope.cwd) if scope.cwd is not None else None
    result = call.service.add(scope.project_id, draft, call.client, root=root)
    scope.remember_path(call)
    return serialize.add_result(result)


@method("memory.get")
def memory_get(call: Call, id: Id) -> OneMemory:
    return {"memory": serialize.memory(call.service.get(id))}


@method("memory.update", writes=True)
def memory_update(
    call: Call, id: Id, expected_updated_at: Version | None = None, **changes: Unpack[Edits]
) -> OneMemory:
    memory = call.service.update(
        id, dict(changes), call.client, expected_updated_at=expected_updated_at
    )
    return {"memory": serialize.memory(memory)}


@method("memory.remove", writes=True)
def memory_remove(call: Call, id: Id, expected_updated_at: Version | None = None) -> OneMemory:
    memory = call.service.remove(id, call.client, expected_updated_at=expected_updated_at)
    return {"memory": serialize.memory(memory)}


@method("memory.restore", writes=True)
def memory_restore(call: Call, id: Id, expected_updated_at: Version | None = None) -> OneMemory:
    memory = call.service.restore(id, call.client, expected_updated_at=expected_updated_at)
    return {"memory": serialize.memory(memory)}


@method("memory.list")
def memory_list(
    call: Call,
    scope: Scope,
    limit: Limit = 50,
    offset: Offset = 0,
    category: str | None = None,
    include_disabled: bool = False,
) -> MemoryPageShape:
    if category is not None:
        rules.check_category(category)
    query = ListQuery(
        category=category, include_disabled=include_disabled, limit=limit, offset=offset
    )
    memories = call.service.list_memories(scope.project_id, query)
    total = call.service.count_memories(scope.project_id, query)
    return {"memories": [serialize.memory(m) for m in memories], "total": total}


class EventsShape(TypedDict):
    events: list[AuditEventShape]


@method("memory.history")
def memory_history(call: Call, id: Id) -> EventsShape:
    return {"events": [serialize.audit_event(e) for e in call.service.history.memory(id)]}


HistoryLimit = Annotated[int, Between(1, 1_000)]


@method("memory.scope_history")
def memory_scope_history(
    call: Call,
    scope: Scope,
    limit: HistoryLimit = 50,
    offset: Offset = 0,
    before_seq: Annotated[int, Between(1, None)] | None = None,
    actor: str | None = None,
    person: str | None = None,
) -> EventsShape:
    """The scope's events, newest first, of one agent (``actor``) or person if given."""
    events = call.service.history.project(
        scope.project_id,
        limit=limit,
        offset=offset,
        before_seq=before_seq,
        actor=None if actor is None else rules.check_text(actor, "actor"),
        person=None if person is None else rules.check_text(person, "person"),
    )
    return {"events": [serialize.audit_event(e) for e in events]}


class StaleShape(TypedDict):
    memories: list[MemoryShape]
    reasons: dict[str, list[str]]


@method("memory.stale")
def memory_stale(call: Call, scope: Scope) -> StaleShape:
    candidates = call.service.stale.candidates(scope.project_id)
    return {
        "memories": [serialize.memory(c.memory) for c in candidates],
        "reasons": {c.memory.id: list(c.reasons) for c in candidates},
    }


class PurgedShape(TypedDict):
    purged: int


@method("memory.purge_expired", writes=True)
def memory_purge_expired(call: Call, scope: Scope | None = None) -> PurgedShape:
    project_id = scope.project_id if scope is not None else None
    return {"purged": call.service.purge_expired(project_id, call.client)}

"""Answers while the database cannot be reached: writes queued, reads from the cache.

When the service's ``offline`` (the outbox, ``ltm_desktop.outbox``) says writes are
queued, ``memory.add``, ``memory.update``, ``memory.remove`` and ``memory.restore`` are
checked as always, then appended to the outbox and answered ``"status": "queued"`` with
the memory as it will be (an add's id is minted here and stays its id). While the server
is unreachable, ``memory.get``, ``memory.list`` and ``memory.search`` answer from the read
cache of this machine's scopes with the outbox's queued writes applied over it (an agent
sees its own queued writes), marked ``"stale": true`` with a ``warning``.

The handlers take the same params as the online ones (``api.methods.memories`` and
``search``), read by the same readers, so a bad request is refused the same way.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Unpack

from ltm_desktop.api import serialize
from ltm_desktop.api.call import Call
from ltm_desktop.api.conflicts import Version
from ltm_desktop.api.params import Edits, Id
from ltm_desktop.api.registry import Handler
from ltm_desktop.api.scopes import Scope
from ltm_desktop.core import rules, writing
from ltm_desktop.core.errors import NotFound
from ltm_desktop.core.offline import Offline, QueuedKind, QueuedWrite, describe_age
from ltm_desktop.core.projects.identity import identify
from ltm_desktop.core.records import Category, Memory, MemoryDraft
from ltm_desktop.core.stale.named_files import check_files

SNIPPET_CHARS = 200
_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True, slots=True)
class Fallback:
    """A method's offline answer; ``writes``: queued while the outbox queues (else only
    while the server is unreachable)."""

    handler: Handler
    writes: bool

    def applies(self, offline: Offline) -> bool:
        if self.writes:
            return offline.queueing()
        return offline.is_offline()


def _warning(offline: Offline, queued: bool) -> str:
    status = offline.status()
    waiting = f"{status.waiting} change{'' if status.waiting == 1 else 's'} waiting"
    if queued:
        return (
            f"the database cannot be reached: queued in this machine's outbox ({waiting}); "
            "it is written when the database answers again"
        )
    return f"offline: answered from this machine's read cache, which may be stale ({waiting})"


# -- what the outbox holds, over the cache --------------------------------------------------


def queued_memory(write: QueuedWrite) -> Memory:
    """The memory a queued add makes (as its ack shows it)."""
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


def _applied(memory: Memory | None, write: QueuedWrite) -> Memory | None:
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
        changed = _applied(found.get(write.memory_id), write)
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
            memory = _applied(memory, write)
            queued_add = queued_add or write.kind is QueuedKind.ADD
    if memory is None:
        raise NotFound(f"{memory_id} (offline: not in this machine's read cache)")
    return memory, queued_add


# -- writes ----------------------------------------------------------------------------------


def memory_add(
    call: Call,
    scope: Scope,
    content: Any,
    title: Any = None,
    category: Any = "knowledge",
    importance: Any = None,
    tags: Any = (),
    ttl_days: Any = None,
    files: Any = (),
) -> dict[str, Any]:
    service = call.service
    draft = MemoryDraft(
        content=content,
        title=title,
        category=category,
        importance=importance,
        tags=tags,
        ttl_days=ttl_days,
        files=(),  # made relative to the project when replayed (the service's rule)
    )
    draft = service.screen.draft(rules.validate_draft(draft, service.settings.default_importance))
    if not isinstance(files, list | tuple) or not all(isinstance(f, str) for f in files):
        check_files(files, None)  # its message
    now = service.now()
    write = QueuedWrite(
        seq=0,
        kind=QueuedKind.ADD,
        memory_id=writing.new_memory_id(now),
        project_id=scope.project_id,
        actor=call.client,
        queued_at=now,
        fields={
            "content": draft.content,
            "title": draft.title,
            "category": rules.check_category(draft.category).value,
            "importance": draft.importance,
            "tags": list(draft.tags),
            "ttl_days": draft.ttl_days,
            "files": list(files),
        },
        cwd=scope.cwd,
    )
    queued = service.offline.queue(write)
    return {
        "status": "queued",
        "memory": serialize.memory(queued_memory(queued)),
        "warning": _warning(service.offline, queued=True),
    }


def _queue_change(
    call: Call,
    memory_id: str,
    kind: QueuedKind,
    fields: dict[str, Any],
    expected_updated_at: float | None,
) -> dict[str, Any]:
    offline = call.service.offline
    current, queued_add = visible_memory(offline, memory_id)
    base = expected_updated_at
    if base is None and not queued_add:
        base = current.updated_at  # what this machine saw: the replay's compare-and-swap
    write = QueuedWrite(
        seq=0,
        kind=kind,
        memory_id=memory_id,
        project_id=current.project_id,
        actor=call.client,
        queued_at=call.service.now(),
        fields=fields,
        base_version=base,
    )
    queued = offline.queue(write)
    after = _applied(current, queued) or current
    return {
        "status": "queued",
        "memory": serialize.memory(after),
        "warning": _warning(offline, queued=True),
    }


def memory_update(
    call: Call, id: Id, expected_updated_at: Version | None = None, **changes: Unpack[Edits]
) -> dict[str, Any]:
    rules.validate_changes(dict(changes))  # refused now, not at the replay
    return _queue_change(call, id, QueuedKind.UPDATE, dict(changes), expected_updated_at)


def memory_remove(call: Call, id: Id, expected_updated_at: Version | None = None) -> dict[str, Any]:
    return _queue_change(call, id, QueuedKind.REMOVE, {}, expected_updated_at)


def memory_restore(
    call: Call, id: Id, expected_updated_at: Version | None = None
) -> dict[str, Any]:
    return _queue_change(call, id, QueuedKind.RESTORE, {}, expected_updated_at)


# -- reads -----------------------------------------------------------------------------------


def project_resolve(call: Call, cwd: object) -> dict[str, Any]:
    """The working directory's project as the core names it before it is stored (its id
    by the identity setting: the repository's remote or the path; a path detached by hand
    is not known offline), its name the directory's: what a tool needs to write or
    search."""
    scopes = call.service.scopes
    identity = identify(cwd, scopes.mode, scopes.remote)
    return {
        "project_id": identity.project_id,
        "path": identity.path,
        "name": rules.display_name_for_path(identity.path),
        "scopes": call.service.ambient.with_ambient(identity.project_id),
    }


def _stale(offline: Offline, result: dict[str, Any]) -> dict[str, Any]:
    result["stale"] = True
    result["warning"] = _warning(offline, queued=False)
    return result


def memory_get(call: Call, id: Id) -> dict[str, Any]:
    memory, _ = visible_memory(call.service.offline, id)
    return _stale(call.service.offline, {"memory": serialize.memory(memory)})


def memory_list(
    call: Call,
    scope: Scope,
    limit: int = 50,
    offset: int = 0,
    category: str | None = None,
    include_disabled: bool = False,
) -> dict[str, Any]:
    if category is not None:
        rules.check_category(category)
    memories = [
        m
        for m in visible_memories(call.service.offline, scope.project_id).values()
        if (include_disabled or not m.disabled) and (category is None or m.category == category)
    ]
    memories.sort(key=lambda m: (-m.importance, -m.updated_at))
    page = memories[offset : offset + limit]
    result = {"memories": [serialize.memory(m) for m in page], "total": len(memories)}
    return _stale(call.service.offline, result)


def memory_search(
    call: Call, scope: Scope, query: str, limit: int = 5, include_global: bool = True
) -> dict[str, Any]:
    """Words of the query in a memory's title, content and tags (no stemming, no
    meaning): a plain search of the cache, ranked by the share of words found."""
    words = {w.casefold() for w in _WORD.findall(rules.check_text(query, "query"))}
    offline = call.service.offline
    scopes = call.service.ambient.with_ambient(scope.project_id, include_global)
    scored: list[tuple[float, Memory]] = []
    for project_id in scopes:
        for memory in visible_memories(offline, project_id).values():
            if memory.disabled or not words:
                continue
            text = " ".join((memory.title, memory.content, " ".join(memory.tags)))
            have = {w.casefold() for w in _WORD.findall(text)}
            found = len(words & have)
            if found:
                scored.append((found / len(words) + memory.importance / 100, memory))
    scored.sort(key=lambda pair: (-pair[0], -pair[1].updated_at))
    hits = [
        {
            "memory": serialize.memory(m),
            "score": round(score, 4),
            "snippet": m.content[:SNIPPET_CHARS],
            "matched": "words" if score >= 1 else "some_words",
        }
        for score, m in scored[:limit]
    ]
    return _stale(offline, {"hits": hits})


def _limits(function: Callable[..., Any], source: Handler) -> Handler:
    """``function`` read with the online handler's readers (the same checks and limits)."""
    own = Handler.of(function)
    readers = dict(source.readers)
    return Handler(
        function,
        tuple((name, readers.get(name, r)) for name, r in own.readers),
        source.spread or own.spread,
        own.accepted,
    )


def fallbacks(methods: Mapping[str, Any]) -> dict[str, Fallback]:
    """The offline answers, by method name, read as the online ``methods`` read theirs."""
    writes: dict[str, Callable[..., Any]] = {
        "memory.add": memory_add,
        "memory.update": memory_update,
        "memory.remove": memory_remove,
        "memory.restore": memory_restore,
    }
    reads: dict[str, Callable[..., Any]] = {
        "project.resolve": project_resolve,
        "memory.get": memory_get,
        "memory.list": memory_list,
        "memory.search": memory_search,
    }
    table = {name: Fallback(_limits(f, methods[name].handler), True) for name, f in writes.items()}
    table.update(
        {name: Fallback(_limits(f, methods[name].handler), False) for name, f in reads.items()}
    )
    return table


__all__ = ["Fallback", "describe_age", "fallbacks", "visible_memories", "visible_memory"]

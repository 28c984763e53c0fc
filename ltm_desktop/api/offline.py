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
from dataclasses import dataclass
from typing import Any, Unpack

from ltm_desktop.api import serialize
from ltm_desktop.api.call import Call
from ltm_desktop.api.conflicts import Version
from ltm_desktop.api.params import Edits, Id
from ltm_desktop.api.registry import Handler
from ltm_desktop.api.scopes import Scope
from ltm_desktop.core import rules
from ltm_desktop.core.listing import check_filters
from ltm_desktop.core.offline import Offline, QueuedKind, describe_age
from ltm_desktop.core.offline_view import cached_list, visible_memories, visible_memory
from ltm_desktop.core.offline_writes import queue_add, queue_change
from ltm_desktop.core.projects.identity import identify
from ltm_desktop.core.records import ListQuery, Memory, MemoryDraft
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


# -- writes (checked and queued by ``core.offline_writes``) ----------------------------------


def _queued(offline: Offline, memory: Memory) -> dict[str, Any]:
    return {
        "status": "queued",
        "memory": serialize.memory(memory),
        "warning": _warning(offline, queued=True),
    }


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
    draft = MemoryDraft(
        content=content,
        title=title,
        category=category,
        importance=importance,
        tags=tags,
        ttl_days=ttl_days,
    )
    if not isinstance(files, list | tuple) or not all(isinstance(f, str) for f in files):
        check_files(files, None)  # its message
    memory = queue_add(
        call.service, scope.project_id, draft, call.client, files=files, cwd=scope.cwd
    )
    return _queued(call.service.offline, memory)


def _queue_change(
    call: Call,
    memory_id: str,
    kind: QueuedKind,
    changes: dict[str, Any],
    expected_updated_at: float | None,
) -> dict[str, Any]:
    _, after = queue_change(
        call.service, memory_id, kind, changes, call.client, expected_updated_at
    )
    return _queued(call.service.offline, after)


def memory_update(
    call: Call, id: Id, expected_updated_at: Version | None = None, **changes: Unpack[Edits]
) -> dict[str, Any]:
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
    query = ListQuery(category=category, include_disabled=include_disabled)
    offline = call.service.offline
    memories = cached_list(offline, scope.project_id, check_filters(query), call.service.now())
    page = memories[offset : offset + limit]
    result = {"memories": [serialize.memory(m) for m in page], "total": len(memories)}
    return _stale(offline, result)


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


__all__ = ["Fallback", "describe_age", "fallbacks"]

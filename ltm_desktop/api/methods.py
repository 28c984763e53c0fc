"""The API's methods: validate params, call the service, shape the result.

Each handler reads its params through ``Params`` (so unknown fields are refused)
and returns plain JSON values. Core errors are mapped to JSON-RPC codes in one
place, ``Dispatcher.dispatch`` (``api.dispatch``); importing this module registers
every handler, so the dispatcher is imported from here.
"""

from __future__ import annotations

import logging
from typing import Any

from ltm_desktop import __version__
from ltm_desktop.api import PROTOCOL_VERSION, serialize
from ltm_desktop.api.conflicts import expected_version
from ltm_desktop.api.dispatch import (
    INLINE,
    METHODS,
    WRITE_METHODS,
    Dispatcher,
    NotInline,
    Session,
    inline_method,
    method,
)
from ltm_desktop.api.params import Params, invalid
from ltm_desktop.api.protocol import (
    UNAUTHORIZED,
    RpcError,
)
from ltm_desktop.core import rules
from ltm_desktop.core.errors import InvalidInput, LtmError, ObservationOff
from ltm_desktop.core.records import EDITABLE_FIELDS, ListQuery, MemoryDraft
from ltm_desktop.core.search.retrieval import MAX_SEARCH_LIMIT

log = logging.getLogger(__name__)
MAX_OFFSET = 10_000_000
__all__ = ["INLINE", "METHODS", "WRITE_METHODS", "Dispatcher", "NotInline", "Session"]


# -- helpers ---------------------------------------------------------------


def scope(d: Dispatcher, p: Params) -> str:
    cwd, project_id = p.raw("cwd"), p.raw("project_id")
    if cwd is not None and project_id is not None:
        raise invalid("cwd", "give cwd or project_id, not both")
    if cwd is None and project_id is None:
        raise invalid("cwd", "give cwd (the agent's working directory) or project_id")
    if cwd is not None and not isinstance(cwd, str):
        raise invalid("cwd", f"must be a string, not {rules.describe(cwd)}")
    if project_id is not None and not isinstance(project_id, str):
        raise invalid("project_id", f"must be a string, not {rules.describe(project_id)}")
    return d.service.resolve_scope(cwd=cwd, project_id=project_id)


def limit(p: Params, default: int) -> int:
    value = p.integer("limit")
    if value is None:
        return default
    if not 1 <= value <= MAX_SEARCH_LIMIT:
        raise invalid("limit", f"must be between 1 and {MAX_SEARCH_LIMIT}; got {value}")
    return value


def memory_id(p: Params) -> str:
    value = p.text("id", required=True)
    return rules.check_text(value, "id")


# -- methods ---------------------------------------------------------------


@method("health", inline=True)
def health(d: Dispatcher, p: Params, s: Session) -> Any:
    p.done()
    service = d.service
    state = service.database.health()
    switches = service.switches
    return {
        "ok": state.ok and switches.local,
        "enabled": switches.enabled,
        "backend": switches.backend,
        "detail": switches.backend_problem() or "; ".join(state.problems),
        "version": __version__,
        "protocol": PROTOCOL_VERSION,
        "schema_version": service.database.schema_version,
        "db_path": service.database.location,
        "synchronous": state.synchronous,
        "problems": list(state.problems),
        "memory_md_problems": [
            serialize.memory_md_problem(x) for x in d.service.memory_md.problems()
        ],
        "semantic_search": serialize.index_status(d.service.search.index_status()),
    }


@method("hello", inline=True)
def hello(d: Dispatcher, p: Params, s: Session) -> Any:
    client = p.text("client", required=True)
    p.done()
    try:
        s.client = rules.check_actor(client)
    except InvalidInput as exc:
        raise invalid("client", str(exc).replace("actor", "client name")) from None
    return {"server": "ltm-desktop", "version": __version__, "protocol": PROTOCOL_VERSION}


@method("auth", inline=True)
def auth(d: Dispatcher, p: Params, s: Session) -> Any:
    token = rules.check_text(p.text("token", required=True), "token")
    p.done()
    if s.transport != "tcp":
        return {"ok": True, "required": False}  # Unix peers are checked by uid instead
    if not d.check_token(token):
        raise RpcError(UNAUTHORIZED, "unauthorized: wrong token")
    s.authenticated = True
    return {"ok": True, "required": True}


@method("project.resolve")
def project_resolve(d: Dispatcher, p: Params, s: Session) -> Any:
    cwd = p.raw("cwd")
    p.done()
    if cwd is None:
        raise invalid("cwd", "is required")
    return serialize.project(d.service.resolve_cwd(cwd))


@method("project.list")
def project_list(d: Dispatcher, p: Params, s: Session) -> Any:
    p.done()
    projects = []
    for project, _ in d.service.projects():
        stats = serialize.stats(d.service.stats(project.project_id))
        projects.append(serialize.project(project, stats))
    return {"projects": projects}


def register(d: Dispatcher, p: Params) -> None:
    """Remember a cwd's path and name, once a write to it has succeeded.

    The write is already committed, so a failure here is logged, not reported: the
    project then shows its id until its next write records the path.
    """
    cwd = p.raw("cwd")
    if cwd is not None:
        try:
            d.service.resolve_scope(cwd=cwd, register=True)
        except LtmError:
            log.warning("could not record the path of %s", cwd, exc_info=True)


@method("memory.add")
def memory_add(d: Dispatcher, p: Params, s: Session) -> Any:
    project_id = scope(d, p)
    content = p.raw("content")
    if content is None:
        raise invalid("content", "is required")
    draft = MemoryDraft(
        content=content,
        title=p.raw("title"),
        category=p.optional("category", "knowledge"),
        importance=p.optional("importance", None),  # None: [memory] default_importance
        tags=p.optional("tags", []),
        ttl_days=p.raw("ttl_days"),
        files=p.optional("files", []),
    )
    p.done()
    cwd = p.raw("cwd")  # absolute files are made relative to it (checked by scope())
    root = rules.normalize_cwd(cwd) if cwd is not None else None
    result = d.service.add(project_id, draft, s.client, root=root)
    register(d, p)
    return serialize.add_result(result)


@method("memory.get")
def memory_get(d: Dispatcher, p: Params, s: Session) -> Any:
    target = memory_id(p)
    p.done()
    return {"memory": serialize.memory(d.service.get(target))}


@method("memory.update")
def memory_update(d: Dispatcher, p: Params, s: Session) -> Any:
    target = memory_id(p)
    changes = {name: p.raw(name) for name in EDITABLE_FIELDS if p.present(name)}
    expected = expected_version(p)
    p.done()
    memory = d.service.update(target, changes, s.client, expected_updated_at=expected)
    return {"memory": serialize.memory(memory)}


@method("memory.remove")
def memory_remove(d: Dispatcher, p: Params, s: Session) -> Any:
    target = memory_id(p)
    expected = expected_version(p)
    p.done()
    memory = d.service.remove(target, s.client, expected_updated_at=expected)
    return {"memory": serialize.memory(memory)}


@method("memory.restore")
def memory_restore(d: Dispatcher, p: Params, s: Session) -> Any:
    target = memory_id(p)
    expected = expected_version(p)
    p.done()
    memory = d.service.restore(target, s.client, expected_updated_at=expected)
    return {"memory": serialize.memory(memory)}


def _search_params(d: Dispatcher, p: Params) -> tuple[str, str, int, bool]:
    project_id = scope(d, p)
    query = p.text("query", required=True)
    count = limit(p, 5)
    include_global = p.boolean("include_global", True)
    p.done()
    return project_id, query, count, include_global


@method("memory.search")
def memory_search(d: Dispatcher, p: Params, s: Session) -> Any:
    project_id, query, count, include_global = _search_params(d, p)
    hits = d.service.search.query(
        project_id, query, limit=count, include_global=include_global, reinforce=True
    )
    return {"hits": [serialize.search_hit(h) for h in hits]}


@inline_method("memory.search")
def memory_search_cached(d: Dispatcher, p: Params, s: Session) -> Any:
    """A search asked again with nothing written since: answered from the cache.

    Only by ``project_id``: resolving a ``cwd`` touches the file system (symlinks),
    which may hang on a slow mount and must not stall the event loop.
    """
    if p.raw("cwd") is not None:
        raise NotInline
    project_id, query, count, include_global = _search_params(d, p)
    hits = d.service.search.cached(
        project_id, query, limit=count, include_global=include_global, reinforce=True
    )
    if hits is None:
        raise NotInline
    return {"hits": [serialize.search_hit(h) for h in hits]}


@method("memory.list")
def memory_list(d: Dispatcher, p: Params, s: Session) -> Any:
    project_id = scope(d, p)
    count = limit(p, 50)
    offset = p.integer("offset") or 0
    if not 0 <= offset <= MAX_OFFSET:
        raise invalid("offset", f"must be between 0 and {MAX_OFFSET:,}")
    category = p.text("category")
    include_disabled = p.boolean("include_disabled", False)
    p.done()
    if category is not None:
        rules.check_category(category)
    query = ListQuery(
        category=category, include_disabled=include_disabled, limit=count, offset=offset
    )
    memories = d.service.list_memories(project_id, query)
    total = d.service.count_memories(project_id, query)
    return {"memories": [serialize.memory(m) for m in memories], "total": total}


@method("memory.history")
def memory_history(d: Dispatcher, p: Params, s: Session) -> Any:
    target = memory_id(p)
    p.done()
    return {"events": [serialize.audit_event(e) for e in d.service.history.memory(target)]}


@method("memory.stale")
def memory_stale(d: Dispatcher, p: Params, s: Session) -> Any:
    project_id = scope(d, p)
    p.done()
    candidates = d.service.stale.candidates(project_id)
    return {
        "memories": [serialize.memory(c.memory) for c in candidates],
        "reasons": {c.memory.id: list(c.reasons) for c in candidates},
    }


@method("memory.purge_expired")
def memory_purge_expired(d: Dispatcher, p: Params, s: Session) -> Any:
    given = p.present("cwd") or p.present("project_id")
    project_id = scope(d, p) if given else None
    p.done()
    return {"purged": d.service.purge_expired(project_id, s.client)}


@method("recall")
def recall(d: Dispatcher, p: Params, s: Session) -> Any:
    project_id = scope(d, p)
    query = p.text("query", required=True)
    kinds = p.strings("kinds")
    count = limit(p, 5)
    include_global = p.boolean("include_global", True)
    p.done()
    hits = d.service.search.recall(
        project_id, query, kinds=kinds, limit=count, include_global=include_global
    )
    return {"hits": [serialize.recall_hit(h) for h in hits]}


@method("observe")
def observe(d: Dispatcher, p: Params, s: Session) -> Any:
    project_id = scope(d, p)
    session_id, kind = p.raw("session_id"), p.raw("kind")
    texts = {name: p.raw(name) for name in ("user_text", "assistant_text", "messages_text")}
    p.done()
    if session_id is None:
        raise invalid("session_id", "is required")
    if kind is None:
        raise invalid("kind", "is required")
    try:
        observation = d.service.observations.record(project_id, kind, session_id, s.client, **texts)
    except ObservationOff as exc:
        return {"observation": None, "skipped": str(exc)}
    register(d, p)
    return {"observation": serialize.observation(observation)}


@method("precis.get")
def precis_get(d: Dispatcher, p: Params, s: Session) -> Any:
    project_id = scope(d, p)
    include_global = p.boolean("include_global", True)
    p.done()
    return serialize.precis(d.service.precis(project_id, include_global))


@method("prompt.section")
def prompt_section(d: Dispatcher, p: Params, s: Session) -> Any:
    project_id = scope(d, p)
    include_global = p.boolean("include_global", True)
    p.done()
    return {"text": d.service.prompt_section(project_id, include_global)}


@method("stats")
def stats(d: Dispatcher, p: Params, s: Session) -> Any:
    project_id = scope(d, p)
    p.done()
    return serialize.stats(d.service.stats(project_id))


@method("events.subscribe")
def events_subscribe(d: Dispatcher, p: Params, s: Session) -> Any:
    p.done()
    if not s.subscribed and s.start_events is not None:
        s.start_events()
        s.subscribed = True
    return {"subscribed": True}


from ltm_desktop.api import changes_method as _changes_method  # noqa: E402,F401 - registers it
from ltm_desktop.api import erase_methods as _erase_methods  # noqa: E402,F401 - registers them
from ltm_desktop.api import forget_method as _forget_method  # noqa: E402,F401 - registers forget
from ltm_desktop.api import inbox_methods as _inbox_methods  # noqa: E402,F401 - registers them

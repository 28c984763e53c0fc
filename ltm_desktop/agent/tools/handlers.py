"""What each tool does: API calls on the agent's behalf, and a reply written for a model.

Every reply names the project it used (name and id), so a wrong scope is visible to
the model and to the user reading along; a search's or recall's text is the bare JSON
array its tool describes (what every client parses), and names the project in the
reply's ``meta`` instead. Arguments arrive checked against the tool's
schema; the rules between them (``add`` needs ``content``...) are checked here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ltm_desktop.api.calls import ApiCalls
from ltm_desktop.api.shapes import AddResultShape, MemoryShape, ProjectShape, RecallHitShape
from ltm_desktop.core.errors import LtmError
from ltm_desktop.core.records import GLOBAL_PROJECT_ID  # a server without ``scopes``
from ltm_desktop.core.rules import MEMORY_TYPES
from ltm_desktop.core.search.query import MAX_QUERY_CHARS

FIELDS = ("title", "content", "category", "importance", "tags", "ttl_days", "files")
SAVE_TYPES = MEMORY_TYPES  # memory_save's ``type``


SEARCH_META = "ltm-desktop/search"  # the key of a search's or recall's ``meta``


@dataclass(frozen=True, slots=True)
class Reply:
    """The text for the model; ``meta`` is for the client and the person (MCP ``_meta``)."""

    text: str
    is_error: bool = False
    meta: dict[str, Any] | None = None
    # the same answer as one JSON object, for clients that need one (MCP structuredContent)
    structured: dict[str, Any] | None = None


class BadArguments(LtmError):
    """The arguments do not fit the tool; the message says which one and how."""


class Refused(LtmError):
    """The call would touch another project's memory."""


@dataclass(frozen=True, slots=True)
class ToolAccess:
    """What a tool runs against: the API's typed calls, and each working directory's
    project, asked for once (it never changes: its id is a hash of the path, its name the
    directory's), which saves a round trip a call."""

    api: ApiCalls
    projects: dict[str, ProjectShape]

    def project(self, cwd: str) -> ProjectShape:
        """The agent's project: ``{"project_id", "path", "name"}``."""
        found = self.projects.get(cwd)
        if found is None:
            found = self.projects[cwd] = self.api.project_resolve(cwd)
        return found


def searched_scopes(project: ProjectShape) -> list[str]:
    """The scopes a search of the project reads (the project, the person's global and the
    team's), as the server says; a server from before per-person scopes: project and global."""
    return project.get("scopes") or [project["project_id"], GLOBAL_PROJECT_ID]


def where(project: ProjectShape) -> str:
    return f'project "{project["name"]}" ({project["project_id"]})'


def _fields(args: dict[str, Any]) -> dict[str, Any]:
    """The memory fields given (the core checks them: a ``ttl_days`` of 0 is "never")."""
    return {name: args[name] for name in FIELDS if name in args}


def _with_warning(text: str, warning: str | None) -> str:
    return f"{text} (Note: {warning})" if warning else text


def _added(project: ProjectShape, result: AddResultShape) -> Reply:
    memory, status = result["memory"], result["status"]
    if status == "deduplicated":
        text = (
            f"deduplicated: the same text is already stored as {memory['id']} in "
            f"{where(project)}; it was refreshed instead of stored twice."
        )
    elif status == "superseded":
        text = (
            f"superseded: saved as {memory['id']} in {where(project)}, replacing the "
            f"near-duplicate {result.get('superseded_id')} (now in the trash)."
        )
    elif status == "queued":  # the database is unreachable: kept on this machine
        text = f"queued: will be saved as {memory['id']} in {where(project)}."
    else:
        text = f"created: saved as {memory['id']} in {where(project)}."
    return Reply(_with_warning(text, result.get("warning")))


def add(access: ToolAccess, cwd: str, fields: dict[str, Any]) -> Reply:
    project = access.project(cwd)
    result = access.api.memory_add(
        fields["content"],
        cwd=cwd,
        title=fields.get("title"),
        category=fields.get("category"),
        importance=fields.get("importance"),
        tags=fields.get("tags"),
        ttl_days=fields.get("ttl_days"),
        files=fields.get("files"),
    )
    return _added(project, result)


def _owned(access: ToolAccess, project: ProjectShape, memory_id: str) -> MemoryShape:
    """The memory, if it belongs to a scope the project's searches read (the project,
    the person's global, the team's); Refused (naming its owner) otherwise."""
    memory = access.api.memory_get(memory_id)
    owner = memory["project_id"]
    if owner in searched_scopes(project):
        return memory
    projects = access.api.project_list()
    name = next((p["name"] for p in projects if p["project_id"] == owner), owner)
    raise Refused(
        f'{memory_id} belongs to project "{name}" ({owner}), not to {where(project)}; '
        "it was left unchanged"
    )


def memory_write(access: ToolAccess, cwd: str, args: dict[str, Any]) -> Reply:
    action = args["action"]
    fields = _fields(args)
    if action == "add":
        if "id" in args:
            raise BadArguments("`id` is for update and remove; add creates a new memory")
        if "content" not in args:
            raise BadArguments("`content` is required to add a memory")
        return add(access, cwd, fields)
    if "id" not in args:
        raise BadArguments(f"`id` is required to {action} a memory (search for it first)")
    project = access.project(cwd)
    memory_id = args["id"]
    if action == "remove":
        if fields:
            raise BadArguments(f"remove takes only `id`, not `{next(iter(fields))}`")
        before = _owned(access, project, memory_id)
        # as read: a change made meanwhile by someone else is a conflict, not overwritten
        seen = before["updated_at"]
        removed = access.api.memory_remove_result(memory_id, expected_updated_at=seen)
        text = (
            f'removed {memory_id} ("{before["title"]}") from {where(project)}; it is in the '
            "trash and the user can restore it."
        )
        return Reply(_with_warning(text, removed.get("warning")))
    if not fields:
        raise BadArguments("update needs at least one field to change: " + ", ".join(FIELDS))
    before = _owned(access, project, memory_id)
    seen = before["updated_at"]
    result = access.api.memory_update_result(memory_id, expected_updated_at=seen, **fields)
    after = result["memory"]
    changed = [name for name in fields if before.get(name) != after.get(name)]
    if not changed:
        return Reply(f"{memory_id} in {where(project)} already had these values; nothing changed.")
    text = f"updated {memory_id} in {where(project)}: {', '.join(changed)} changed."
    return Reply(_with_warning(text, result.get("warning")))


def memory_save(access: ToolAccess, cwd: str, args: dict[str, Any]) -> Reply:
    fields = {"content": args["content"], "category": SAVE_TYPES[args.get("type", "knowledge")]}
    if args.get("files"):
        fields["files"] = args["files"]
    return add(access, cwd, fields)


def _score(value: float) -> float:
    """Four significant digits: enough to rank by, short for the model."""
    return float(f"{value:.4g}")


def _listing(
    project: ProjectShape, query: str, rows: list[dict[str, Any]], *, stale: str | None = None
) -> Reply:
    """The rows as a bare JSON array; what was searched in ``meta``. ``stale``: why the
    answer came from this machine's read cache (the database server away), said after
    the array and in ``meta``, so the agent knows the memories may be out of date."""
    searched: dict[str, Any] = {
        "project_id": project["project_id"],
        "project": project["name"],
        "scopes": searched_scopes(project),
        "query": query,
        "count": len(rows),
    }
    text = json.dumps(rows, ensure_ascii=False)
    if stale is not None:
        searched.update(stale=True, warning=stale)
        text += f"\n(Note: {stale})"
    return Reply(text, meta={SEARCH_META: searched}, structured={"results": rows, **searched})


def _query(args: dict[str, Any]) -> str:
    """The query as the search reads it (its first MAX_QUERY_CHARS characters), cut here:
    the same answer in process and through a server, whose request lines are limited
    (a 1.4 MB query was refused as too large there, and cut and answered here)."""
    query: str = args["query"][:MAX_QUERY_CHARS]
    return query


def memory_search(access: ToolAccess, cwd: str, args: dict[str, Any]) -> Reply:
    project = access.project(cwd)
    query = _query(args)
    # by id: the project is resolved already, and the server answers a search it has
    # cached at once only when it is asked by id
    answer = access.api.memory_search_answer(
        query, project_id=project["project_id"], limit=args.get("limit", 5)
    )
    hits = answer["hits"]
    rows = [
        {
            "id": m["id"],
            "title": m["title"],
            "content": m["content"],
            "category": m["category"],
            "importance": m["importance"],
            "tags": m["tags"],
            **({"files": m["files"]} if m.get("files") else {}),
            "updated_at": m["updated_at"],
            "score": _score(hit["score"]),
            "matched": hit.get("matched", "words"),  # words, some_words or meaning
        }
        for hit in hits
        for m in [hit["memory"]]
    ]
    stale = answer.get("warning", "offline") if answer.get("stale") else None
    return _listing(project, query, rows, stale=stale)


def _recall_row(hit: RecallHitShape) -> dict[str, Any]:
    score = _score(hit["score"])
    if hit["kind"] == "memory":
        m = hit["memory"]
        return {
            "kind": "memory",
            "id": m["id"],
            "title": m["title"],
            "text": m["content"],
            "category": m["category"],
            "importance": m["importance"],
            "tags": m["tags"],
            "updated_at": m["updated_at"],
            "score": score,
        }
    o = hit["observation"]
    return {
        "kind": "observation",
        "id": o["id"],
        "title": o["title"],
        "text": o["narrative"],
        "session_id": o["session_id"],
        "created_at": o["created_at"],
        "score": score,
    }


def memory_recall(access: ToolAccess, cwd: str, args: dict[str, Any]) -> Reply:
    project = access.project(cwd)
    query = _query(args)
    hits = access.api.recall(query, project_id=project["project_id"], limit=args.get("limit", 5))
    rows = [_recall_row(hit) for hit in hits]
    return _listing(project, query, rows)


def memory_forget(access: ToolAccess, cwd: str, args: dict[str, Any]) -> Reply:
    memory_ids, observation_ids = args.get("memoryIds", []), args.get("observationIds", [])
    if not memory_ids and not observation_ids:
        raise BadArguments("give `memoryIds` and/or `observationIds` (lists of ids) to forget")
    project = access.project(cwd)
    result = access.api.forget(cwd=cwd, memory_ids=memory_ids, observation_ids=observation_ids)
    done = result["forgotten"]["memories"] + result["forgotten"]["observations"]
    parts = [f"forgot {', '.join(done)}" if done else "forgot nothing"]
    if result["already_forgotten"]:
        parts.append(f"already forgotten before: {', '.join(result['already_forgotten'])}")
    refused = result["refused"]
    if refused:
        parts.append("refused: " + "; ".join(f"{r['id']} ({r['reason']})" for r in refused))
    text = f"In {where(project)}: " + ". ".join(parts) + "."
    return Reply(_with_warning(text, result.get("warning")), is_error=bool(refused) and not done)

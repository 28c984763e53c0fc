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

from ltm_desktop.agent.access import MemoryAccess
from ltm_desktop.core.errors import LtmError
from ltm_desktop.core.records import GLOBAL_PROJECT_ID
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


def project_of(access: MemoryAccess, cwd: str) -> dict[str, Any]:
    """The agent's project: ``{"project_id", "path", "name"}``."""
    result: dict[str, Any] = access.call("project.resolve", {"cwd": cwd})
    return result


def where(project: dict[str, Any]) -> str:
    return f'project "{project["name"]}" ({project["project_id"]})'


def _fields(args: dict[str, Any]) -> dict[str, Any]:
    """The memory fields given (the core checks them: a ``ttl_days`` of 0 is "never")."""
    return {name: args[name] for name in FIELDS if name in args}


def _with_warning(text: str, result: dict[str, Any]) -> str:
    warning = result.get("warning")
    return f"{text} (Note: {warning})" if warning else text


def _added(project: dict[str, Any], result: dict[str, Any]) -> Reply:
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
    else:
        text = f"created: saved as {memory['id']} in {where(project)}."
    return Reply(_with_warning(text, result))


def add(access: MemoryAccess, cwd: str, fields: dict[str, Any]) -> Reply:
    project = project_of(access, cwd)
    params = {"cwd": cwd, **{k: v for k, v in fields.items() if v is not None}}
    return _added(project, access.call("memory.add", params))


def _owned(access: MemoryAccess, project: dict[str, Any], memory_id: str) -> dict[str, Any]:
    """The memory, if it belongs to the project or to global; Refused (naming its owner)
    otherwise."""
    memory: dict[str, Any] = access.call("memory.get", {"id": memory_id})["memory"]
    owner = memory["project_id"]
    if owner in (project["project_id"], GLOBAL_PROJECT_ID):
        return memory
    projects = access.call("project.list", {})["projects"]
    name = next((p["name"] for p in projects if p["project_id"] == owner), owner)
    raise Refused(
        f'{memory_id} belongs to project "{name}" ({owner}), not to {where(project)}; '
        "it was left unchanged"
    )


def memory_write(access: MemoryAccess, cwd: str, args: dict[str, Any]) -> Reply:
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
    project = project_of(access, cwd)
    memory_id = args["id"]
    if action == "remove":
        if fields:
            raise BadArguments(f"remove takes only `id`, not `{next(iter(fields))}`")
        before = _owned(access, project, memory_id)
        # as read: a change made meanwhile by someone else is a conflict, not overwritten
        seen = before["updated_at"]
        result = access.call("memory.remove", {"id": memory_id, "expected_updated_at": seen})
        text = (
            f'removed {memory_id} ("{before["title"]}") from {where(project)}; it is in the '
            "trash and the user can restore it."
        )
        return Reply(_with_warning(text, result))
    if not fields:
        raise BadArguments("update needs at least one field to change: " + ", ".join(FIELDS))
    before = _owned(access, project, memory_id)
    seen = before["updated_at"]
    result = access.call("memory.update", {"id": memory_id, **fields, "expected_updated_at": seen})
    after = result["memory"]
    changed = [name for name in fields if before[name] != after[name]]
    if not changed:
        return Reply(f"{memory_id} in {where(project)} already had these values; nothing changed.")
    text = f"updated {memory_id} in {where(project)}: {', '.join(changed)} changed."
    return Reply(_with_warning(text, result))


def memory_save(access: MemoryAccess, cwd: str, args: dict[str, Any]) -> Reply:
    fields = {"content": args["content"], "category": SAVE_TYPES[args.get("type", "knowledge")]}
    if args.get("files"):
        fields["files"] = args["files"]
    return add(access, cwd, fields)


def _score(value: float) -> float:
    """Four significant digits: enough to rank by, short for the model."""
    return float(f"{value:.4g}")


def _listing(project: dict[str, Any], query: str, rows: list[dict[str, Any]]) -> Reply:
    """The rows as a bare JSON array; what was searched in ``meta``."""
    searched = {
        "project_id": project["project_id"],
        "project": project["name"],
        "scopes": [project["project_id"], GLOBAL_PROJECT_ID],
        "query": query,
        "count": len(rows),
    }
    return Reply(
        json.dumps(rows, ensure_ascii=False),
        meta={SEARCH_META: searched},
        structured={"results": rows, **searched},
    )


def _query(args: dict[str, Any]) -> str:
    """The query as the search reads it (its first MAX_QUERY_CHARS characters), cut here:
    the same answer in process and through a server, whose request lines are limited
    (a 1.4 MB query was refused as too large there, and cut and answered here)."""
    query: str = args["query"][:MAX_QUERY_CHARS]
    return query


def memory_search(access: MemoryAccess, cwd: str, args: dict[str, Any]) -> Reply:
    project = project_of(access, cwd)
    query = _query(args)
    # by id: the project is resolved already, and the server answers a search it has
    # cached at once only when it is asked by id
    params = {
        "project_id": project["project_id"],
        "query": query,
        "limit": args.get("limit", 5),
    }
    hits = access.call("memory.search", params)["hits"]
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
    return _listing(project, query, rows)


def _recall_row(hit: dict[str, Any]) -> dict[str, Any]:
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


def memory_recall(access: MemoryAccess, cwd: str, args: dict[str, Any]) -> Reply:
    project = project_of(access, cwd)
    query = _query(args)
    params = {"project_id": project["project_id"], "query": query, "limit": args.get("limit", 5)}
    rows = [_recall_row(hit) for hit in access.call("recall", params)["hits"]]
    return _listing(project, query, rows)


def memory_forget(access: MemoryAccess, cwd: str, args: dict[str, Any]) -> Reply:
    memory_ids, observation_ids = args.get("memoryIds", []), args.get("observationIds", [])
    if not memory_ids and not observation_ids:
        raise BadArguments("give `memoryIds` and/or `observationIds` (lists of ids) to forget")
    project = project_of(access, cwd)
    result = access.call(
        "forget", {"cwd": cwd, "memory_ids": memory_ids, "observation_ids": observation_ids}
    )
    done = result["forgotten"]["memories"] + result["forgotten"]["observations"]
    parts = [f"forgot {', '.join(done)}" if done else "forgot nothing"]
    if result["already_forgotten"]:
        parts.append(f"already forgotten before: {', '.join(result['already_forgotten'])}")
    refused = result["refused"]
    if refused:
        parts.append("refused: " + "; ".join(f"{r['id']} ({r['reason']})" for r in refused))
    text = f"In {where(project)}: " + ". ".join(parts) + "."
    return Reply(_with_warning(text, result), is_error=bool(refused) and not done)

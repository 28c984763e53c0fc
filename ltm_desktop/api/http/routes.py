"""The six routes, each a translation onto one method of the socket API.

The socket API's dispatcher validates, calls the service and maps core errors, so a
route only renames fields (``q`` is ``query``, ``concepts`` are ``tags``, ``memoryIds``
are ``memory_ids``) and names the HTTP field in any error it gets back.
"""

from __future__ import annotations

import asyncio
import re
from concurrent.futures import Executor
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from ltm_desktop.api.call import Session
from ltm_desktop.api.dispatch import Dispatcher
from ltm_desktop.api.http.answers import DISABLED, HttpError, bad_input, from_rpc_error
from ltm_desktop.api.protocol import MAX_LINE_BYTES, RpcError, decode_line
from ltm_desktop.api.protocol import Request as RpcRequest
from ltm_desktop.core import rules
from ltm_desktop.core.errors import clipped
from ltm_desktop.core.rules import describe

CLIENT = "http"  # the actor the audit history shows for writes made over HTTP
MAX_BODY_BYTES = MAX_LINE_BYTES  # the socket API's limit on one request
# socket param -> HTTP field, for the error details
RENAMED = {
    "query": "q",
    "category": "type",
    "tags": "concepts",
    "memory_ids": "memoryIds",
    "observation_ids": "observationIds",
    "actor": "agent",
}
DEFAULT_BACKEND = "sqlite"


def query_fields(request: Request, allowed: tuple[str, ...]) -> dict[str, str]:
    """The query string as a dict; an unknown or repeated parameter is an error."""
    fields: dict[str, str] = {}
    for name, value in request.query_params.multi_items():
        if name not in allowed:
            raise bad_input(clipped(name), "is not a parameter of this route")
        if name in fields:
            raise bad_input(name, "is given more than once")
        fields[name] = value
    return fields


async def json_body(request: Request, allowed: tuple[str, ...]) -> dict[str, Any]:
    """The body as a JSON object of known fields, read up to MAX_BODY_BYTES."""
    too_large = HttpError(413, "too_large", f"the body may have at most {MAX_BODY_BYTES:,} bytes")
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > MAX_BODY_BYTES:
        raise too_large
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY_BYTES:
            raise too_large
    if not body.strip():
        raise HttpError(400, "invalid_json", "the body must be a JSON object; it is empty")
    try:
        value = decode_line(bytes(body))
    except RpcError as exc:
        raise from_rpc_error(exc, {}) from None
    if not isinstance(value, dict):
        raise HttpError(
            400, "invalid_json", f"the body must be a JSON object, not {describe(value)}"
        )
    unknown = sorted(set(value) - set(allowed))
    if unknown:
        raise bad_input(clipped(unknown[0]), "is not a field of this route")
    return value


def require_cwd(fields: dict[str, Any]) -> Any:
    if fields.get("cwd") is None:
        raise bad_input("cwd", "is required (the agent's working directory)")
    return fields["cwd"]


def whole_number(fields: dict[str, str], name: str) -> int | None:
    text = fields.get(name)
    if text is None:
        return None
    if not re.fullmatch(r"[+-]?[0-9]{1,9}", text.strip()):
        raise bad_input(name, "must be a whole number")
    return int(text)


def check_files(value: Any) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise bad_input("files", f"must be a list of strings, not {describe(value)}")
    return value


class MemoryRoutes:
    """The route handlers, bound to the dispatcher of one service.

    ``pool`` runs the dispatcher's calls: threads that live as long as the server, since
    each thread that reads holds a SQLite connection (a pool that retires idle threads,
    like anyio's, would open new ones after every pause).
    """

    def __init__(self, dispatcher: Dispatcher, pool: Executor) -> None:
        self.dispatcher = dispatcher
        self.pool = pool

    def routes(self) -> list[Route]:
        return [
            Route("/api/memory/health", self.health, methods=["GET"]),
            Route("/api/memory/recall", self.recall, methods=["GET"]),
            Route("/api/memory/remember", self.remember, methods=["POST"]),
            Route("/api/memory/forget", self.forget, methods=["POST"]),
            Route("/api/memory/stats", self.stats, methods=["GET"]),
            Route("/api/memory/history", self.history, methods=["GET"]),
        ]

    @property
    def enabled(self) -> bool:
        return self.dispatcher.service.settings.memory_enabled

    async def call(self, method: str, params: dict[str, Any]) -> Any:
        """Run a socket method on a worker thread (the event loop never waits on SQLite)."""
        if method != "health" and not self.enabled:
            raise HttpError(503, DISABLED, "long-term memory is disabled ([memory] enabled)")
        request = RpcRequest(method, params, None, False)
        session = Session("http", client=CLIENT)
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self.pool, self.dispatcher.dispatch, request, session)
        except RpcError as exc:
            raise from_rpc_error(exc, RENAMED) from None

    async def health(self, request: Request) -> JSONResponse:
        query_fields(request, ())
        state = await self.call("health", {})
        health = {
            "ok": state["ok"],
            "enabled": self.enabled,
            "backend": state.get("backend", DEFAULT_BACKEND),
            "version": state["version"],
            "problems": state["problems"],
        }
        outbox = state.get("outbox")
        if outbox and (outbox["text"] or outbox["kept"]):  # writes kept while PG is away
            health["outbox"] = outbox
        return JSONResponse(health)

    async def recall(self, request: Request) -> JSONResponse:
        fields = query_fields(request, ("cwd", "q", "limit"))
        params: dict[str, Any] = {"cwd": require_cwd(fields)}
        if "q" in fields:
            params["query"] = fields["q"]  # absent: the method says "q is required"
        count = whole_number(fields, "limit")
        if count is not None:
            params["limit"] = count
        return JSONResponse(await self.call("recall", params))

    async def remember(self, request: Request) -> JSONResponse:
        body = await json_body(request, ("cwd", "content", "type", "concepts", "files"))
        params: dict[str, Any] = {"cwd": require_cwd(body)}
        if "content" in body:
            params["content"] = body["content"]
        kind = body.get("type")
        if kind is not None:  # the design's memory types ("decision", "todo") name a category
            params["category"] = (
                rules.MEMORY_TYPES.get(kind, kind) if isinstance(kind, str) else kind
            )
        if body.get("concepts") is not None:
            params["tags"] = body["concepts"]
        files = check_files(body.get("files"))
        if files:  # stored relative to cwd; a path outside the project is refused by name
            params["files"] = files
        return JSONResponse(await self.call("memory.add", params))

    async def forget(self, request: Request) -> JSONResponse:
        body = await json_body(request, ("cwd", "memoryIds", "observationIds"))
        params = {
            "cwd": require_cwd(body),
            "memory_ids": body.get("memoryIds"),
            "observation_ids": body.get("observationIds"),
        }
        return JSONResponse(await self.call("forget", params))

    async def stats(self, request: Request) -> JSONResponse:
        fields = query_fields(request, ("cwd",))
        return JSONResponse(await self.call("stats", {"cwd": require_cwd(fields)}))

    async def history(self, request: Request) -> JSONResponse:
        """The project's newest audit events, each naming its agent, person and machine."""
        fields = query_fields(request, ("cwd", "limit", "agent", "person"))
        params: dict[str, Any] = {"cwd": require_cwd(fields)}
        count = whole_number(fields, "limit")
        if count is not None:
            params["limit"] = count
        if "agent" in fields:
            params["actor"] = fields["agent"]
        if "person" in fields:
            params["person"] = fields["person"]
        return JSONResponse(await self.call("memory.scope_history", params))

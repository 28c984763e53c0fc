"""``ltm-desktop mcp``: the memory tools as an MCP server on stdin/stdout.

The only module that imports the MCP SDK (``mcp``, its ``MCPServer``); the protocol is
the SDK's. The tools come from the catalogue and run through a ``Toolbox``, so they
behave exactly as for Python harnesses. One process serves one client:

- the project is ``--cwd``, else the client's first MCP root (asked once it calls a
  tool, again after it says its roots changed), else the working directory;
- writes are attributed to the client's name from its ``initialize`` clientInfo, the
  agents' generic MCP client names (``codex-mcp-client``) as the agent, the same name
  its hooks write under (``codex``), so that one agent is one actor in the history;
- the instructions are the project's ``## Long-Term Memory`` prompt section as it is at
  start (the roots are not known before ``initialize`` is answered); with
  ``--instructions brief`` (what ``integrate`` sets up) only how to use the tools, since
  the agent's session-start hook injects the memory already and two copies would waste
  the budget and could disagree after an edit;
- a search's or recall's text is the bare JSON array of results; the project searched
  and the count go in the result's ``_meta``, for clients and people, not the model.
  No ``structuredContent`` goes with it: Claude Code shows a result's structured content
  to the model instead of its text. Except to Gemini CLI, which turns a JSON text into
  structured content itself and then refuses an array ("expected record"), failing the
  call: it gets ``{"results": [...], ...}`` as structured content and shows the text;
- a resource, ``ltm://project/MEMORY.md``, is the project's MEMORY.md, read fresh each time.

stdout carries MCP messages only (the SDK diverts stray writes); logs go to stderr.
Closing stdin ends the server with exit status 0.
"""

from __future__ import annotations

import io
import logging
import os
import re
import sys
import urllib.parse
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server import ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError
from mcp.server.mcpserver.resources import Resource
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import func_metadata
from pydantic import Field

from ltm_desktop import __version__
from ltm_desktop.agent.access import AccessError, Unavailable
from ltm_desktop.agent.hooks.events import CLAUDE_CODE, CLIENT_NAMES, CODEX, GEMINI
from ltm_desktop.agent.mcp.forked import DEFAULT_CLIENT, ForkedOpening
from ltm_desktop.agent.mcp.stdin import DamagedRequests, RepairingReader
from ltm_desktop.agent.tools.catalogue import DEFAULT_TOOLS, ToolSpec
from ltm_desktop.agent.tools.toolbox import DISABLED, UNAVAILABLE, Toolbox
from ltm_desktop.core import rules
from ltm_desktop.core.errors import InvalidInput, MemoryDisabled

log = logging.getLogger(__name__)
MEMORY_MD_URI = "ltm://project/MEMORY.md"
# The clientInfo names of the agents `integrate` wires, as the actor their hooks write as.
AGENT_CLIENTS = {
    "codex-mcp-client": CLIENT_NAMES[CODEX],
    "gemini-cli-mcp-client": CLIENT_NAMES[GEMINI],
    "claude-code": CLIENT_NAMES[CLAUDE_CODE],
}
# Clients that parse a JSON text result into structuredContent when there is none, and
# fail on anything but an object (Gemini CLI's McpComplianceTransport, 0.61).
NEEDS_STRUCTURED = frozenset({"gemini-cli-mcp-client"})
ROOTS_TIMEOUT = 5.0
FALLBACK_INSTRUCTIONS = (
    "## Long-Term Memory\n\nYou have a long-term memory that persists across sessions. "
    "Search it with `memory_search` before answering questions about this project's "
    "conventions, decisions or the user's preferences, and save durable facts (decisions, "
    "preferences, how-tos) with `memory_write` when you learn them. Nothing is stored for "
    "this project yet."
)

BRIEF_INSTRUCTIONS = (
    "You have a long-term memory that persists across sessions; a session-start hook puts "
    "its most important memories for this project in your context, under the heading "
    '"Long-Term Memory". If that section is not in your context (the hooks are not trusted or are '
    "turned off), search the memory with `memory_search` before you rely on what you "
    "know of this project. Search it before answering questions about this project's "
    "conventions, decisions or the user's preferences, and save durable facts (decisions, "
    "preferences, how-tos) with `memory_write` when you learn them."
)
FULL, BRIEF = "full", "brief"
INSTRUCTION_KINDS = (FULL, BRIEF)

DISABLED_INSTRUCTIONS = (
    "Long-term memory is switched off in ltm-desktop's config ([memory] enabled = false): "
    "its tools answer nothing, so do not call them."
)


def path_of_root(uri: str) -> str | None:
    """The directory of a ``file://`` root, or None for any other kind of root."""
    parsed = urllib.parse.urlparse(uri)
    if parsed.scheme != "file" or not parsed.path:
        return None
    path = urllib.parse.unquote(parsed.path)
    if re.match(r"^/[A-Za-z]:", path):  # file:///C:/Users/me on Windows
        path = path[1:]
    return path


class Connection:
    """What this process knows of its one client: who it is, and its project directory."""

    def __init__(self, toolbox: Toolbox, cwd: str | None, fallback: str) -> None:
        self.toolbox = toolbox
        self._fixed = cwd
        self.cwd = cwd or fallback
        self._fallback = fallback
        self._roots_asked = False
        self._client: str | None = None
        self._preparing = anyio.Lock()  # parallel calls wait for the first one's roots

    async def prepare(self, ctx: ServerRequestContext[Any, Any]) -> None:
        """Before a tool call or a resource read: the client's name, and its roots."""
        params = ctx.session.client_params
        name = params.client_info.name if params is not None else DEFAULT_CLIENT
        async with self._preparing:
            if name != self._client:
                self._client = name
                try:
                    actor = rules.check_actor(AGENT_CLIENTS.get(name, name))
                except InvalidInput:
                    actor = DEFAULT_CLIENT
                await anyio.to_thread.run_sync(self.toolbox.set_client_name, actor)
            if self._fixed is None and not self._roots_asked:
                self._roots_asked = True
                self.cwd = await self._from_roots(ctx) or self._fallback

    async def _from_roots(self, ctx: ServerRequestContext[Any, Any]) -> str | None:
        capabilities = ctx.session.client_capabilities
        if capabilities is None or capabilities.roots is None:
            return None
        try:
            with anyio.fail_after(ROOTS_TIMEOUT):
                found = await ctx.session.send_request(
                    types.ListRootsRequest(), types.ListRootsResult
                )
        except Exception as exc:  # the client's bug or a timeout: use the fallback
            log.warning("could not list the client's roots (%s); using %s", exc, self._fallback)
            return None
        paths = [p for p in (path_of_root(str(root.uri)) for root in found.roots) if p]
        return paths[0] if paths else None

    @property
    def needs_structured(self) -> bool:
        """Whether results must carry structured content (``NEEDS_STRUCTURED``)."""
        return self._client in NEEDS_STRUCTURED

    def roots_changed(self) -> None:
        self._roots_asked = False

    def memory_md(self) -> str:
        """The project's MEMORY.md text, fresh from the store."""
        try:
            precis = self.toolbox.api().precis_get(cwd=self.cwd)
        except MemoryDisabled:
            raise ResourceError(DISABLED) from None
        except (AccessError, Unavailable) as exc:
            raise ResourceError(UNAVAILABLE.format(reason=exc)) from None
        return precis["text"]


class CatalogueTool(Tool):
    """A catalogue tool: its own JSON Schema as published, its raw arguments to the toolbox
    (which checks them and answers every failure as text, never as an exception)."""

    connection: Any = Field(default=None, exclude=True)

    async def run(
        self, arguments: dict[str, Any], context: Any, convert_result: bool = False
    ) -> Any:
        connection: Connection = self.connection
        reply = await anyio.to_thread.run_sync(
            connection.toolbox.run, self.name, arguments, connection.cwd
        )
        structured = reply.structured if connection.needs_structured else None
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=reply.text)],
            structured_content=structured,
            is_error=reply.is_error,
            _meta=reply.meta,
        )


class MemoryMdResource(Resource):
    """The project's MEMORY.md, read fresh on every read."""

    connection: Any = Field(default=None, exclude=True)

    async def read(self) -> str:
        connection: Connection = self.connection
        return await anyio.to_thread.run_sync(connection.memory_md)


def _no_arguments() -> None:
    """Stands in for a tool function: CatalogueTool.run never calls it."""


def _tool(spec: ToolSpec, connection: Connection) -> Tool:
    return CatalogueTool(
        fn=_no_arguments,
        connection=connection,
        name=spec.name,
        title=spec.title,
        description=spec.description,
        parameters=spec.schema,
        fn_metadata=func_metadata(_no_arguments, structured_output=False),
        context_kwarg=None,
        is_async=True,
        annotations=types.ToolAnnotations(
            title=spec.title,
            read_only_hint=spec.hints.read_only,
            destructive_hint=spec.hints.destructive,
            idempotent_hint=spec.hints.idempotent,
            open_world_hint=spec.hints.open_world,
        ),
    )


def instructions(toolbox: Toolbox, cwd: str, kind: str = FULL) -> str:
    """The project's prompt section (MEMORY.md included), or with ``kind`` brief only how
    to use the tools; naming the tools offered."""
    if kind == BRIEF:  # no store opened: the answer to ``initialize`` waits for this
        if toolbox.memory_switched_off():
            return DISABLED_INSTRUCTIONS
        return _with_tools(BRIEF_INSTRUCTIONS, toolbox)
    try:
        text = toolbox.api().prompt_section(cwd=cwd)
    except MemoryDisabled:  # the tools all say so: the model must not be told to use them
        return DISABLED_INSTRUCTIONS
    except (AccessError, Unavailable) as exc:
        log.warning("no memory for the instructions: %s", exc)
        text = ""
    return _with_tools(text or FALLBACK_INSTRUCTIONS, toolbox)


def _with_tools(text: str, toolbox: Toolbox) -> str:
    """``text``, naming the tools offered when they are not the default ones."""
    names = [spec.name for spec in toolbox.tools]
    if tuple(names) != DEFAULT_TOOLS:
        text += "\n\nMemory tools offered here: " + ", ".join(f"`{n}`" for n in names) + "."
    return text


def lone_surrogate_refusal(ctx: ServerRequestContext[Any, Any], where: str) -> Any:
    """The answer to a tool call whose arguments held a lone surrogate (``mcp_stdin``),
    as the toolbox answers invalid arguments; None lets any other request go on."""
    if ctx.method != "tools/call":
        return None
    tool = ctx.params.get("name") if isinstance(ctx.params, dict) else None
    text = (
        f"Invalid arguments for {tool}: {where} contains invalid Unicode (a lone "
        "surrogate); nothing was done."
    )
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


def build_server(
    toolbox: Toolbox,
    cwd: str | None,
    fallback: str,
    damaged: DamagedRequests | None = None,
    instruction_kind: str = FULL,
) -> MCPServer[Any]:
    """``damaged``: the requests ``mcp_stdin`` found a lone surrogate in (stdio only);
    ``instruction_kind``: full or brief (``instructions``)."""
    connection = Connection(toolbox, cwd, fallback)

    async def prepare(ctx: ServerRequestContext[Any, Any], call_next: Any) -> Any:
        where = damaged.take(ctx.request_id) if damaged and ctx.request_id is not None else None
        refusal = lone_surrogate_refusal(ctx, where) if where else None
        if refusal is not None:
            return refusal
        if ctx.method in ("tools/call", "resources/read"):
            await connection.prepare(ctx)
        elif ctx.method == "notifications/roots/list_changed":
            connection.roots_changed()
        return await call_next(ctx)

    resource = MemoryMdResource(
        uri=MEMORY_MD_URI,
        name="MEMORY.md",
        title="This project's long-term memory (MEMORY.md)",
        description="The most important memories of this project and the global scope, "
        "as injected at the start of a session; always current.",
        mime_type="text/markdown",
        connection=connection,
    )
    return MCPServer(
        name="ltm-desktop",
        title="ltm-desktop long-term memory",
        version=__version__,
        instructions=instructions(toolbox, connection.cwd, instruction_kind),
        tools=[_tool(spec, connection) for spec in toolbox.tools],
        resources=[resource],
        middleware=[prepare],
    )


def serve_stdio(
    data_dir: str | None,
    config: str | None,
    *,
    cwd: str | None = None,
    tools: str | None = None,
    instructions: str = FULL,
    fallback_cwd: str | None = None,
    opening: ForkedOpening | None = None,
) -> int:
    """Serve until stdin closes; the exit status (0).

    ``fallback_cwd``: the project when neither ``cwd`` nor the client's roots name one
    (default: this process's working directory); ``opening``: the memory being opened by
    a forked process (``mcp_forked``), used instead of opening it here, and ended here.
    """
    toolbox = Toolbox(
        data_dir=data_dir,
        config=config,
        client_name=DEFAULT_CLIENT,
        tools=tools,
        opener=opening.open if opening is not None else None,
    )
    damaged = DamagedRequests()
    stdin = sys.stdin
    sys.stdin = io.TextIOWrapper(
        io.BufferedReader(RepairingReader(stdin.buffer, damaged)), encoding="utf-8"
    )
    try:
        server = build_server(toolbox, cwd, fallback_cwd or os.getcwd(), damaged, instructions)
        server.run("stdio")
    finally:
        sys.stdin = stdin
        toolbox.close()
        if opening is not None:  # never asked for (or failed): its process ends too
            opening.close()
    return 0


class _NoMemory:
    """An access that has nothing: for ``warm_up``, which must touch no store."""

    def describe(self) -> str:
        return "nothing (warming up)"

    def set_client(self, name: str) -> None:
        """Nobody to name."""

    def call(self, method: str, params: dict[str, Any]) -> Any:
        raise Unavailable("warming up")

    def close(self) -> None:
        """Nothing to close."""


def warm_up() -> None:
    """Run one in-memory session (initialize, list tools and resources) so that the
    SDK's lazily built validators exist before the warm process forks its children."""
    from mcp.client.client import Client

    async def session() -> None:
        quiet = logging.getLogger(__name__)
        level = quiet.level
        quiet.setLevel(logging.ERROR)  # "no memory for the instructions" is expected here
        try:
            server = build_server(Toolbox(access=_NoMemory(), tools="all"), "/", "/")
        finally:
            quiet.setLevel(level)
        async with Client(server) as client:
            await client.list_tools()
            await client.list_resources()

    anyio.run(session)

"""Talking to the real ``ltm-desktop mcp`` with the MCP SDK's own stdio client."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from pydantic import FileUrl

EXECUTABLE = Path(sys.executable).with_name("ltm-desktop")
PASSED_ENV = (
    "XDG_RUNTIME_DIR",
    "XDG_DATA_HOME",
    "XDG_CONFIG_HOME",
    "LTM_DESKTOP_CONFIG",
    "LTM_DESKTOP_DATA_DIR",
    "LTM_DESKTOP_SOCKET",
    "PYTHONPATH",  # the code under test, where it is not the installed one (a worktree)
)


class Session:
    """An initialized MCP session, what ``initialize`` answered, and anything odd on stdout."""

    def __init__(self, client: ClientSession, init: types.InitializeResult) -> None:
        self.client = client
        self.init = init
        self.stray: list[Exception] = []

    async def call(self, name: str, arguments: dict[str, Any]) -> tuple[str, bool]:
        text, error, _ = await self.call_with_meta(name, arguments)
        return text, error

    async def call_result(self, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        result: types.CallToolResult = await self.client.call_tool(name, arguments)
        return result

    async def call_with_meta(
        self, name: str, arguments: dict[str, Any]
    ) -> tuple[str, bool, dict[str, Any] | None]:
        """The result's text, whether it is an error, and its ``_meta``."""
        result = await self.call_result(name, arguments)
        content = result.content[0]
        assert isinstance(content, types.TextContent)
        return content.text, bool(result.is_error), result.meta


@asynccontextmanager
async def mcp_session(
    data_dir: Path,
    args: Sequence[str] = (),
    *,
    name: str = "test-agent",
    roots: Sequence[Path] | None = None,
    cwd: Path | None = None,
    stderr: Path,
    env: dict[str, str] | None = None,
) -> AsyncIterator[Session]:
    """``ltm-desktop --data-dir DATA mcp ARGS`` as a subprocess, initialized as ``name``;
    ``env``: variables set for it besides the passed ones (``LTM_DESKTOP_DATABASE_URL``)."""
    env = {**{key: os.environ[key] for key in PASSED_ENV if key in os.environ}, **(env or {})}
    params = StdioServerParameters(
        command=str(EXECUTABLE),
        args=["--data-dir", str(data_dir), "mcp", *args],
        env=env,
        cwd=cwd,
    )
    stray: list[Exception] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, Exception):
            stray.append(message)

    async def list_roots(context: Any) -> types.ListRootsResult:
        return types.ListRootsResult(
            roots=[types.Root(uri=FileUrl(path.as_uri()), name=path.name) for path in roots or ()]
        )

    with stderr.open("a", encoding="utf-8") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            client = ClientSession(
                read,
                write,
                client_info=types.Implementation(name=name, version="1.0"),
                list_roots_callback=list_roots if roots is not None else None,
                message_handler=on_message,
            )
            async with client:
                session = Session(client, await client.initialize())
                session.stray = stray
                yield session

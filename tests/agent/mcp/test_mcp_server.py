"""``ltm-desktop mcp`` as a real subprocess, driven by the MCP SDK's stdio client.

Every scenario runs twice: with the app's server up on the data dir (the tools go
through its socket) and without one (the MCP server opens the database itself).
"""

from __future__ import annotations

import functools
import json
import os
import re
import select
import subprocess
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest

from ltm_desktop.agent.mcp.warm import WarmMcp, start_warm_mcp
from ltm_desktop.agent.tools.handlers import SEARCH_META
from ltm_desktop.api.server import ServerOptions
from ltm_desktop.api.server_thread import ServerThread
from ltm_desktop.core.records import GLOBAL_PROJECT_ID, MemoryDraft
from ltm_desktop.core.service import MemoryService
from ltm_desktop.serve import socket_for
from tests.agent.mcp_client import EXECUTABLE, PASSED_ENV, mcp_session
from tests.api.conftest import wait_until

ID = re.compile(r"\b((?:mem|obs)_[0-9a-f]+)")
ALL_TOOLS = ["memory_write", "memory_search", "memory_save", "memory_recall", "memory_forget"]


def run(scenario: Callable[[], Awaitable[None]], timeout: float = 60) -> None:
    async def bounded() -> None:
        with anyio.fail_after(timeout):
            await scenario()

    anyio.run(bounded)


def ids(text: str) -> list[str]:
    return ID.findall(text)


@pytest.fixture(params=["server", "warm", "direct"])
def mode(request: pytest.FixtureRequest, service: MemoryService) -> Iterator[ServerThread | None]:
    """The app's server on the data dir's own socket (where ``mcp`` finds it): without its
    warm MCP process ("server": ``mcp`` starts cold and uses the socket) or with it
    ("warm": a child of the warm process serves); or no server at all ("direct")."""
    if request.param == "direct":
        yield None
        return
    path = socket_for(service.paths.data_dir)
    companion = None
    if request.param == "warm":
        companion = functools.partial(start_warm_mcp, service.paths.data_dir, None)
    thread = ServerThread(service, service.paths.data_dir, ServerOptions(path, companion=companion))
    assert thread.start(), thread.error
    if companion is not None:
        warm = warm_process(thread)
        wait_until(lambda: warm.listen.exists(), timeout=30)
    yield thread
    thread.stop()


def warm_process(server: ServerThread) -> WarmMcp:
    warm = server.server._companion
    assert isinstance(warm, WarmMcp)
    return warm


def went_through(mode: ServerThread | None, client: str) -> None:
    """With a server up, the writes went through its socket, as ``client``."""
    if mode is not None:
        assert (mode.server.last_action() or "").startswith(f"{client}: ")


def served_where_expected(mode: ServerThread | None) -> None:
    """Called during a session: with the warm process, a child of it is serving (not
    ``ltm-desktop mcp`` itself); without, it has no child."""
    if mode is not None and mode.server.options.companion is not None:
        assert children_of(warm_process(mode).process.pid), "no warm child is serving"


def children_of(pid: int) -> list[int]:
    """The live children of ``pid``, from /proc (this suite runs on Linux)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(stat.parent.name))
    return found


@pytest.fixture
def project_dir(tmp_path: Path) -> Path:
    path = tmp_path / "billing-api"
    path.mkdir()
    return path


@pytest.fixture
def stderr(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "mcp-stderr.txt"
    yield path
    if path.exists():
        assert "Traceback" not in path.read_text(encoding="utf-8")


@pytest.mark.slow
def test_default_tools_and_instructions(
    mode: ServerThread | None, service: MemoryService, project_dir: Path, stderr: Path
) -> None:
    project = service.resolve_scope(cwd=str(project_dir), register=True)
    service.add(project, MemoryDraft("Deploys need the VPN", importance=9), "gui")

    async def scenario() -> None:
        args = ["--cwd", str(project_dir)]
        async with mcp_session(service.paths.data_dir, args, stderr=stderr) as session:
            assert session.init.server_info.name == "ltm-desktop"
            served_where_expected(mode)
            instructions = session.init.instructions or ""
            assert instructions.startswith("## Long-Term Memory\n\n")
            assert "`memory_search`" in instructions
            assert "`memory_write`" in instructions
            assert "## Deploys need the VPN\n\nDeploys need the VPN" in instructions
            listed = (await session.client.list_tools()).tools
            assert [t.name for t in listed] == ["memory_write", "memory_search"]
            text, error = await session.call("memory_forget", {"memoryIds": ["mem_1"]})
            assert error
            assert "Unknown tool" in text
            assert session.stray == []

    run(scenario)


@pytest.mark.slow
def test_brief_instructions_leave_the_memory_to_the_hook(
    mode: ServerThread | None, service: MemoryService, project_dir: Path, stderr: Path
) -> None:
    """What ``integrate`` sets up: the session-start hook injects MEMORY.md, so the
    server's instructions must not carry a second copy (the model saw both)."""
    project = service.resolve_scope(cwd=str(project_dir), register=True)
    service.add(project, MemoryDraft("Deploys need the VPN", importance=9), "gui")

    async def scenario() -> None:
        args = ["--cwd", str(project_dir), "--instructions", "brief"]
        async with mcp_session(service.paths.data_dir, args, stderr=stderr) as session:
            served_where_expected(mode)
            instructions = session.init.instructions or ""
            assert "Deploys need the VPN" not in instructions
            assert "## Long-Term Memory" not in instructions
            assert "If that section is not in your context" in instructions  # hooks not run
            assert "`memory_search`" in instructions
            assert "`memory_write`" in instructions
            text, error = await session.call("memory_search", {"query": "vpn deploys"})
            assert not error, text
            assert [row["title"] for row in json.loads(text)] == ["Deploys need the VPN"]

    run(scenario)


@pytest.mark.slow
@pytest.mark.parametrize("client", ["claude-code", "gemini-cli-mcp-client", "codex-mcp-client"])
def test_a_search_is_a_json_array_for_every_client(
    client: str, service: MemoryService, project_dir: Path, stderr: Path
) -> None:
    """The text is the bare array. Claude Code shows structured content instead of the
    text, so none goes to it; Gemini CLI turns a JSON text into structured content itself
    and fails the call on an array, so it gets an object beside the text."""
    project = service.resolve_scope(cwd=str(project_dir), register=True)
    memory = service.add(project, MemoryDraft("Releases go through make release"), "gui").memory

    async def scenario() -> None:
        args = ["--cwd", str(project_dir)]
        async with mcp_session(service.paths.data_dir, args, stderr=stderr, name=client) as session:
            result = await session.call_result("memory_search", {"query": "release"})
            assert not result.is_error
            [content] = result.content
            assert isinstance(content, types.TextContent)
            rows = json.loads(content.text)
            assert [row["id"] for row in rows] == [memory.id]
            if client == "gemini-cli-mcp-client":
                assert result.structured_content is not None
                assert result.structured_content["results"] == rows
                assert result.structured_content["project_id"] == project
            else:
                assert result.structured_content is None

    run(scenario)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("client", "actor"),
    [
        ("codex-mcp-client", "codex"),
        ("gemini-cli-mcp-client", "gemini-cli"),
        ("claude-code", "claude-code"),
        ("Cursor", "Cursor"),
    ],
)
def test_an_agents_writes_are_attributed_to_the_agent(
    client: str, actor: str, service: MemoryService, project_dir: Path, stderr: Path
) -> None:
    """The name its hooks write under: one agent is one actor in the history."""

    async def scenario() -> None:
        args = ["--cwd", str(project_dir)]
        async with mcp_session(service.paths.data_dir, args, stderr=stderr, name=client) as session:
            text, error = await session.call("memory_write", {"action": "add", "content": "x y z"})
            assert not error, text

    run(scenario)
    project = service.resolve_scope(cwd=str(project_dir))
    [memory] = service.list_memories(project)
    assert memory.source == actor


@pytest.mark.slow
def test_memory_write_is_announced_as_not_destructive(
    service: MemoryService, project_dir: Path, stderr: Path
) -> None:
    """A removal goes to the trash and an update keeps its history: Codex refuses a tool
    announced as destructive under its default approval policy."""

    async def scenario() -> None:
        args = ["--cwd", str(project_dir), "--tools", "all"]
        async with mcp_session(service.paths.data_dir, args, stderr=stderr) as session:
            listed = {t.name: t.annotations for t in (await session.client.list_tools()).tools}
            write = listed["memory_write"]
            assert write is not None
            assert (write.read_only_hint, write.destructive_hint) == (False, False)

    run(scenario)


@pytest.mark.slow
def test_every_tool_good_and_bad_over_mcp(
    mode: ServerThread | None, service: MemoryService, project_dir: Path, stderr: Path
) -> None:
    project = service.resolve_scope(cwd=str(project_dir), register=True)
    shop = service.resolve_scope(cwd="/home/dev/src/shop", register=True)
    theirs = service.add(shop, MemoryDraft("Shop uses Postgres 16"), "gui").memory
    shared = service.add(GLOBAL_PROJECT_ID, MemoryDraft("User prefers small commits"), "gui").memory
    seen = service.observations.record(
        project, "agent_end", "s1", "hook", user_text="why did checkout fail?"
    )
    found: dict[str, str] = {}

    async def scenario() -> None:
        args = ["--cwd", str(project_dir), "--tools", "all"]
        async with mcp_session(service.paths.data_dir, args, stderr=stderr) as session:
            listed = {t.name: t for t in (await session.client.list_tools()).tools}
            assert list(listed) == ALL_TOOLS
            search_hints = listed["memory_search"].annotations
            assert search_hints is not None
            assert search_hints.read_only_hint is True
            forget_hints = listed["memory_forget"].annotations
            assert forget_hints is not None
            assert forget_hints.destructive_hint is True
            assert listed["memory_write"].input_schema["required"] == ["action"]

            text, error = await session.call(
                "memory_write",
                {"action": "add", "content": "Checkout retries payments twice", "importance": 8},
            )
            assert not error, text
            assert text.startswith("created: saved as mem_")
            assert f'project "billing-api" ({project})' in text
            written = found["written"] = ids(text)[0]

            text, error, meta = await session.call_with_meta(
                "memory_search", {"query": "checkout payments"}
            )
            assert not error, text
            assert [row["id"] for row in json.loads(text)] == [written]  # the text is the array
            assert meta is not None
            assert meta[SEARCH_META]["project_id"] == project
            assert meta[SEARCH_META]["count"] == 1

            text, error = await session.call(
                "memory_save", {"content": "Use ruff", "type": "workflow"}
            )
            assert not error, text
            saved = ids(text)[0]

            text, error = await session.call("memory_recall", {"query": "checkout", "limit": 10})
            assert not error, text
            kinds = {row["kind"] for row in json.loads(text)}
            assert kinds == {"memory", "observation"}

            text, error = await session.call(
                "memory_write", {"action": "update", "id": written, "importance": 3}
            )
            assert (text, error) == (
                f'updated {written} in project "billing-api" ({project}): importance changed.',
                False,
            )

            text, error = await session.call(
                "memory_forget",
                {"memoryIds": [saved, shared.id, theirs.id], "observationIds": [seen.id]},
            )
            assert not error, text
            assert f"forgot {saved}, {shared.id}, {seen.id}" in text
            assert f"refused: {theirs.id} (the memory belongs to project 'shop' ({shop})" in text

            resources = (await session.client.list_resources()).resources
            assert [str(r.uri) for r in resources] == ["ltm://project/MEMORY.md"]
            contents = (await session.client.read_resource("ltm://project/MEMORY.md")).contents
            assert "## Checkout retries payments twice" in getattr(contents[0], "text", "")

            text, error = await session.call("memory_write", {"action": "remove", "id": written})
            assert not error, text
            assert text.startswith(f"removed {written}")
            contents = (await session.client.read_resource("ltm://project/MEMORY.md")).contents
            assert "Checkout retries" not in getattr(contents[0], "text", "")  # read fresh

            bad: list[tuple[str, dict[str, Any], str]] = [
                ("memory_write", {"action": "add"}, "`content` is required to add a memory"),
                (
                    "memory_write",
                    {"action": "update", "id": theirs.id, "title": "x"},
                    'belongs to project "shop"',
                ),
                (
                    "memory_search",
                    {"query": "x", "limit": 99},
                    "`limit` must be a whole number from 1 to 20",
                ),
                ("memory_save", {"text": "x"}, "unknown argument `text`"),
                ("memory_recall", {}, "`query` is required"),
                ("memory_forget", {"memoryIds": 7}, "`memoryIds` must be a list of strings"),
            ]
            for name, arguments, message in bad:
                text, error = await session.call(name, arguments)
                assert error, (name, text)
                assert message in text
            text, error = await session.call("memory_search", {"query": "ruff"})
            assert not error  # still serving after the bad calls
            assert session.stray == []

    run(scenario)
    written = found["written"]
    history = service.history.memory(written)
    assert [e.action.value for e in history] == ["created", "updated", "removed"]
    assert {e.actor for e in history} == {"test-agent"}
    assert service.get(written).source == "test-agent"
    assert service.get(shared.id).disabled
    assert service.history.memory(shared.id)[-1].actor == "test-agent"
    assert service.observations.get(seen.id).disabled
    assert not service.get(theirs.id).disabled
    # the search found it once (counted by whichever process served the search)
    wait_until(lambda: service.get(written).use_count >= 1)
    went_through(mode, "test-agent")


@pytest.mark.slow
def test_the_project_comes_from_roots_else_the_working_directory(
    mode: ServerThread | None, service: MemoryService, tmp_path: Path, stderr: Path
) -> None:
    rooted, started_in = tmp_path / "rooted", tmp_path / "started-in"
    rooted.mkdir()
    started_in.mkdir()
    data = service.paths.data_dir

    async def scenario() -> None:
        async with mcp_session(data, roots=[rooted], name="cursor", stderr=stderr) as session:
            replies: list[tuple[str, bool]] = []

            async def write(content: str) -> None:
                replies.append(
                    await session.call("memory_write", {"action": "add", "content": content})
                )

            async with anyio.create_task_group() as group:  # in parallel, as the first calls
                group.start_soon(write, "A")
                group.start_soon(write, "A2")
            rooted_id = service.resolve_scope(cwd=str(rooted))
            for text, error in replies:
                assert not error, text
                log = stderr.read_text(encoding="utf-8") if stderr.exists() else ""
                assert f'project "rooted" ({rooted_id})' in text, f"{text}\nserver log:\n{log}"
        async with mcp_session(data, cwd=started_in, name="cursor", stderr=stderr) as session:
            text, error = await session.call("memory_write", {"action": "add", "content": "B"})
            assert f'project "started-in" ({service.resolve_scope(cwd=str(started_in))})' in text
        args = ["--cwd", str(started_in)]
        async with mcp_session(data, args, roots=[rooted], stderr=stderr) as session:
            text, error = await session.call("memory_write", {"action": "add", "content": "C"})
            assert '"started-in"' in text  # --cwd wins over the roots

    run(scenario)
    went_through(mode, "test-agent")


@pytest.mark.slow
def test_closing_stdin_ends_it_with_status_0_and_stdout_is_only_mcp(
    service: MemoryService, project_dir: Path
) -> None:
    env = {key: os.environ[key] for key in PASSED_ENV if key in os.environ}
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"},
        },
    }
    process = subprocess.run(
        [EXECUTABLE, "--data-dir", service.paths.data_dir, "mcp", "--cwd", project_dir],
        input=json.dumps(initialize) + "\n",
        capture_output=True,
        text=True,
        env={"PATH": os.environ["PATH"], **env},
        timeout=60,
        check=False,
    )
    assert process.returncode == 0, process.stderr
    assert "Traceback" not in process.stderr
    messages = [json.loads(line) for line in process.stdout.splitlines()]
    assert [(m["jsonrpc"], m["id"]) for m in messages] == [("2.0", 1)]
    assert messages[0]["result"]["serverInfo"]["name"] == "ltm-desktop"


class RawMcp:
    """``ltm-desktop mcp`` spoken to line by line, for messages the SDK's client cannot
    send (a JSON string escaping a lone surrogate, as JavaScript's JSON.stringify does)."""

    def __init__(self, data_dir: Path, cwd: Path, stderr: Path) -> None:
        env = {key: os.environ[key] for key in PASSED_ENV if key in os.environ}
        self._errors = stderr.open("a", encoding="utf-8")
        self.process = subprocess.Popen(
            [EXECUTABLE, "--data-dir", data_dir, "mcp", "--cwd", cwd],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._errors,
            env={"PATH": os.environ["PATH"], **env},
        )

    def ask(self, line: str, timeout: float = 30) -> dict[str, Any]:
        """Send one line; the next message the server writes (within ``timeout``)."""
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        self.process.stdin.write(line.encode("utf-8") + b"\n")
        self.process.stdin.flush()
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        assert ready, f"no answer to {line[:80]} within {timeout} s"
        answer: dict[str, Any] = json.loads(self.process.stdout.readline())
        return answer

    def tell(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line.encode("utf-8") + b"\n")
        self.process.stdin.flush()

    def close(self) -> int:
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            return self.process.wait(timeout=30)
        finally:
            assert self.process.stdout is not None
            self.process.stdout.close()
            self._errors.close()


@pytest.mark.slow
def test_a_tool_call_with_a_lone_surrogate_is_answered_and_stores_nothing(
    service: MemoryService,
    mode: ServerThread | None,
    project_dir: Path,
    stderr: Path,
) -> None:
    raw = RawMcp(service.paths.data_dir, project_dir, stderr)
    try:
        init = raw.ask(
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "initialize",
                    "params": {
                        "protocolVersion": "2025-06-18",
                        "capabilities": {},
                        "clientInfo": {"name": "raw \\ud83d client", "version": "1"},
                    },
                }
            )
        )
        assert init["result"]["serverInfo"]["name"] == "ltm-desktop"
        raw.tell('{"jsonrpc": "2.0", "method": "notifications/initialized"}')
        call = (
            '{"jsonrpc": "2.0", "id": "w-1", "method": "tools/call", "params": {"name": '
            '"memory_write", "arguments": {"action": "add", "content": "half \\ud83d an emoji"}}}'
        )

        refused = raw.ask(call)

        assert refused["id"] == "w-1"
        assert refused["result"]["isError"] is True
        text = refused["result"]["content"][0]["text"]
        assert "content contains invalid Unicode (a lone surrogate)" in text
        good = {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {
                "name": "memory_write",
                "arguments": {"action": "add", "content": "whole 😀 emoji"},
            },
        }
        written = raw.ask(json.dumps(good))
        assert written["id"] == 3
        assert written["result"]["isError"] is False, written
    finally:
        assert raw.close() == 0
    contents = [
        m.content for m in service.list_memories(service.resolve_scope(cwd=str(project_dir)))
    ]
    assert contents == ["whole 😀 emoji"]

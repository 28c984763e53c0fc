"""The agents' surfaces with the memory on PostgreSQL (``LTM_DESKTOP_DATABASE_URL`` set, as
a user sets it): a Claude Code hook and the MCP server work end to end on a live server,
and fail open when the server is down (nothing listens on its port) or drops packets
(a port whose connection queue is full: the kernel drops each new SYN, as a firewall that
drops packets does). A hook then exits 0 with the agent's empty result, nothing injected,
and says why in its log; an MCP tool call answers "Long-term memory is unavailable".
How long each takes is a measurement (the report of issue 33), not an assertion here:
a test only says that it ends (tests/hang.py)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from ltm_desktop.agent.hooks.runner import ENV_DEADLINE
from ltm_desktop.core.records import MemoryDraft
from ltm_desktop.core.service import MemoryService
from tests.agent.hook_process import EVENTS, HookResult, hook_log, payload, run_hook
from tests.agent.hook_schemas import check_output
from tests.agent.mcp_client import mcp_session
from tests.conftest import ProcessEnv
from tests.hang import finishes

ENV_URL = "LTM_DESKTOP_DATABASE_URL"
PASSWORD = "hunter2-never-shown"
on_postgres = pytest.mark.parametrize("backend", ["postgres"], indirect=True)


@pytest.fixture
def down_url() -> Iterator[str]:
    """A server that is down: the port is ours (bound, so no one else takes it) and no one
    listens on it, so every connection is refused at once."""
    held = socket.socket()
    held.bind(("127.0.0.1", 0))
    try:
        yield f"postgresql://ltm:{PASSWORD}@127.0.0.1:{held.getsockname()[1]}/ltm"
    finally:
        held.close()


@pytest.fixture
def dropping_url() -> Iterator[str]:
    """A server whose packets are dropped: a listener with a full connection queue (one
    connection never accepted fills a backlog of 0); Linux drops further SYNs, so a
    connection attempt waits until its own timeout, as behind a dropping firewall."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    port = listener.getsockname()[1]
    filler = socket.create_connection(("127.0.0.1", port), timeout=5)
    try:
        yield f"postgresql://ltm:{PASSWORD}@127.0.0.1:{port}/ltm"
    finally:
        filler.close()
        listener.close()


def hook(
    event: str, data_dir: Path, cwd: Path, url: str, *, own_deadline: bool = False
) -> HookResult:
    """The real Claude Code hook for ``event`` with its real payload, the URL set;
    ``own_deadline``: with the hooks' own deadline, not the test suite's longer one."""
    stdin = payload("claude-code", event, cwd)
    env = {ENV_URL: url, **({ENV_DEADLINE: ""} if own_deadline else {})}
    return finishes(lambda: run_hook("claude-code", event, stdin, data_dir, env=env))


def assert_failed_open(done: HookResult, event: str) -> None:
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""  # Claude Code's empty result: nothing injected, nothing blocked
    check_output("claude-code", event, done.stdout)
    assert "Traceback" not in done.stderr
    assert PASSWORD not in done.stdout + done.stderr + hook_log()


@pytest.mark.slow
def test_every_claude_code_hook_fails_open_when_the_server_is_down(
    down_url: str, tmp_path: Path
) -> None:
    for event in EVENTS:
        assert_failed_open(hook(event, tmp_path / "data", tmp_path, down_url), event)
    port = down_url.rsplit(":", 1)[1].split("/")[0]
    assert f"cannot reach PostgreSQL at 127.0.0.1:{port}/ltm" in hook_log()
    assert "Connection refused" in hook_log()
    assert not (tmp_path / "data" / "ltm.sqlite").exists()  # no SQLite behind its back


@pytest.mark.slow
@pytest.mark.parametrize("event", ["session-start", "user-prompt", "session-end"])
def test_a_hook_fails_open_when_the_server_drops_packets(
    event: str, dropping_url: str, tmp_path: Path
) -> None:
    """The connection would wait 2 s (the hooks' 1 s connect timeout, which psycopg
    rounds up to 2 s as libpq does); the hook's own deadline answers first."""
    done = hook(event, tmp_path / "data", tmp_path, dropping_url, own_deadline=True)
    assert_failed_open(done, event)
    assert "no result within the deadline; answered empty" in hook_log()


@pytest.mark.slow
@on_postgres
def test_session_start_injects_the_memories_of_the_server(
    service: MemoryService, process_env: ProcessEnv, tmp_path: Path
) -> None:
    project = service.resolve_scope(cwd=str(tmp_path), register=True)
    service.add(project, MemoryDraft("Deploys need the VPN, kept on PostgreSQL"), "gui")
    url = process_env(service.paths.data_dir)[ENV_URL]
    done = hook("session-start", tmp_path / "elsewhere", tmp_path, url)  # any data dir
    assert done.returncode == 0, done.stderr
    assert "Deploys need the VPN, kept on PostgreSQL" in done.stdout
    check_output("claude-code", "session-start", done.stdout)
    ended = hook("session-end", tmp_path / "elsewhere", tmp_path, url)
    assert ended.returncode == 0, ended.stderr
    assert len(service.observations.page(project)) >= 1  # the hooks' events, recorded there


def run(scenario: object) -> None:
    async def bounded() -> None:
        with anyio.fail_after(120):
            await scenario()  # type: ignore[operator]

    anyio.run(bounded)


@pytest.mark.slow
@pytest.mark.parametrize("server", ["down", "dropping"])
def test_an_mcp_tool_call_queues_its_write_when_the_server_is_unreachable(
    server: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """Issue #34: the write is kept in the data dir's outbox and acknowledged as queued;
    the search answers from this machine's read cache (and the outbox), never an error."""
    url = request.getfixturevalue(f"{server}_url")
    stderr = tmp_path / "mcp-stderr.txt"

    async def scenario() -> None:
        async with mcp_session(
            tmp_path / "data", ["--cwd", str(tmp_path)], stderr=stderr, env={ENV_URL: url}
        ) as session:
            text, error = await session.call(
                "memory_write", {"action": "add", "content": "Kept while the server is away"}
            )
            assert not error, text
            assert text.startswith("queued: will be saved as mem_"), text
            assert PASSWORD not in text
            text, error = await session.call("memory_search", {"query": "server away"})
            assert not error, text
            assert "Kept while the server is away" in text
            assert PASSWORD not in text

    run(scenario)
    logged = stderr.read_text(encoding="utf-8") if stderr.exists() else ""
    assert "Traceback" not in logged
    assert PASSWORD not in logged


@pytest.mark.slow
@on_postgres
def test_mcp_works_end_to_end_on_the_server(
    service: MemoryService, process_env: ProcessEnv, tmp_path: Path
) -> None:
    url = process_env(service.paths.data_dir)[ENV_URL]
    stderr = tmp_path / "mcp-stderr.txt"
    project = service.resolve_scope(cwd=str(tmp_path), register=True)
    service.add(project, MemoryDraft("Releases are tagged vMAJOR.MINOR on main"), "gui")

    async def scenario() -> None:
        async with mcp_session(
            tmp_path / "elsewhere", ["--cwd", str(tmp_path)], stderr=stderr, env={ENV_URL: url}
        ) as session:
            instructions = session.init.instructions or ""
            assert "Releases are tagged vMAJOR.MINOR on main" in instructions
            text, error = await session.call(
                "memory_write", {"action": "add", "content": "The staging DB is read-only"}
            )
            assert not error, text
            text, error = await session.call("memory_search", {"query": "staging read-only"})
            assert not error, text
            assert "The staging DB is read-only" in text

    run(scenario)
    written = [m.content for m in service.list_memories(project)]
    assert "The staging DB is read-only" in written  # in the server's database


@pytest.mark.slow
def test_an_agents_opening_gives_up_on_a_dropping_server_as_soon_as_psycopg_allows(
    dropping_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The MCP server and the tools open the store with a 2 s connect timeout (psycopg's
    least), not the 10 s of a process that can wait: every tool call waited 10 s."""
    from ltm_desktop.agent.access import Unavailable
    from ltm_desktop.agent.connect import open_access

    monkeypatch.setenv(ENV_URL, dropping_url)
    # Issue #34: the opening gives up as soon, and the memory answers offline from then on
    access = finishes(
        lambda: open_access(tmp_path / "data", tmp_path / "c.toml", "agent"), within=8
    )
    try:
        with pytest.raises(Unavailable, match="cannot reach PostgreSQL at 127.0.0.1:"):
            finishes(lambda: access.call("stats", {"cwd": str(tmp_path)}), within=1)
    finally:
        access.close()

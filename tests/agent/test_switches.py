"""The switches as an agent meets them: the tools (over the socket and in-process) and
the hooks (the real console script, stdin and all), memory on, off, and the placeholder
backend."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from ltm_desktop.agent.tools.toolbox import DISABLED, Toolbox
from ltm_desktop.api.runtime import socket_for
from ltm_desktop.api.server import ServerOptions
from ltm_desktop.api.server_thread import ServerThread
from ltm_desktop.core.records import MemoryDraft
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.config import Settings
from tests.agent.conftest import CWD, _access
from tests.agent.hook_process import hook_log, payload, run_hook
from tests.agent.hook_schemas import check_output
from tests.agent.mcp_client import mcp_session
from tests.conftest import ServiceFactory

TOOL_CALLS = {
    "memory_search": {"query": "deploy"},
    "memory_write": {"action": "add", "content": "Deploy with make deploy"},
    "memory_recall": {"query": "deploy"},
}
SWITCHES = {
    "on": Settings(),
    "off": Settings(memory_enabled=False),
    "agentmemory": Settings(memory_backend="agentmemory"),
}


@pytest.fixture(params=["socket", "direct"])
def access_kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _tools(service: MemoryService, kind: str, socket_dir: Path) -> Iterator[Toolbox]:
    for access in _access(kind, service, socket_dir):
        yield Toolbox(tools="all", access=access)


@pytest.mark.parametrize("switch", list(SWITCHES))
def test_tools_follow_the_switch(
    switch: str, access_kind: str, make_service: ServiceFactory, socket_dir: Path
) -> None:
    service = make_service(settings=SWITCHES[switch])
    for tools in _tools(service, access_kind, socket_dir):
        names = {spec.name for spec in tools.tools}
        for name, arguments in TOOL_CALLS.items():
            if name not in names:
                continue
            reply = tools.run(name, arguments, CWD)
            if switch == "on":
                assert not reply.is_error, reply.text
            elif switch == "off":
                assert (reply.is_error, reply.text) == (True, DISABLED)
            else:
                assert reply.is_error
                assert reply.text.startswith(f'{name}: the "agentmemory" memory backend')
                assert "not implemented yet" in reply.text
    written = service.count_memories(service.resolve_scope(cwd=CWD))
    assert written == (1 if switch == "on" else 0)


@pytest.fixture(params=["direct", "server"])
def served(request: pytest.FixtureRequest, service: MemoryService) -> Iterator[str]:
    """The hooks with the app's server up (its switch is the served service's) or not."""
    if request.param == "direct":
        yield "direct"
        return
    thread = ServerThread(
        service, service.paths.data_dir, ServerOptions(socket_for(service.paths.data_dir))
    )
    assert thread.start(), thread.error
    yield "server"
    thread.stop()


@pytest.mark.parametrize("switch", ["off", "agentmemory"])
def test_hooks_do_nothing_and_exit_0(
    switch: str, served: str, service: MemoryService, tmp_path: Path
) -> None:
    cwd = tmp_path / "project"
    cwd.mkdir()
    project = service.resolve_scope(cwd=str(cwd), register=True)
    service.add(project, MemoryDraft(content="Deploy with ./scripts/deploy.sh only."), "gui")
    config = tmp_path / "config.toml"
    config.write_text(
        "[memory]\nenabled = false\n" if switch == "off" else '[memory]\nbackend = "agentmemory"\n'
    )
    if served == "server":  # the app runs with the same config as the hook
        service.switches.settings = SWITCHES[switch]
    for event in ("session-start", "user-prompt", "pre-compact", "stop", "session-end"):
        done = run_hook(
            "claude-code",
            event,
            payload("claude-code", event, cwd),
            service.paths.data_dir,
            config=config,
        )
        assert done.returncode == 0, done.stderr
        assert "Traceback" not in done.stderr
        check_output("claude-code", event, done.stdout)
        assert "Deploy with" not in done.stdout  # no memory reached the agent
    assert service.observations.page(project) == []
    expected = "disabled in the config" if switch == "off" else "backend is not implemented yet"
    assert expected in hook_log()


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["full", "brief"])
@pytest.mark.parametrize("switch", ["off", "agentmemory"])
def test_mcp_starts_and_answers_with_each_switch(
    switch: str,
    kind: str,
    service: MemoryService,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        "[memory]\nenabled = false\n" if switch == "off" else '[memory]\nbackend = "agentmemory"\n'
    )
    monkeypatch.setenv("LTM_DESKTOP_CONFIG", str(config))
    stderr = tmp_path / "stderr.txt"

    async def scenario() -> None:
        args = ["--cwd", str(tmp_path), "--instructions", kind]
        async with mcp_session(service.paths.data_dir, args, stderr=stderr) as session:
            text, error = await session.call("memory_search", {"query": "deploy"})
            assert error
            if switch == "off":
                assert text == DISABLED
                # the model is not told to use tools that all answer "disabled"
                instructions = session.init.instructions or ""
                assert "switched off" in instructions
                assert "memory_search" not in instructions
            else:
                assert "not implemented yet" in text

    anyio.run(scenario)
    assert "Traceback" not in stderr.read_text(encoding="utf-8")

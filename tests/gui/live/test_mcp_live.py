"""An agent's write through ``ltm-desktop mcp`` shows in the open window within 2 s."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from pytestqt.qtbot import QtBot

from ltm_desktop.api.server import ServerOptions
from ltm_desktop.api.server_thread import ServerThread
from ltm_desktop.core.service import MemoryService
from ltm_desktop.serve import socket_for
from tests.agent.mcp_client import mcp_session
from tests.gui.conftest import WindowFactory


@pytest.fixture
def api(service: MemoryService) -> Iterator[ServerThread]:
    """The window's agent API on the data dir's own socket, as the app serves it."""
    thread = ServerThread(
        service, service.paths.data_dir, ServerOptions(socket_for(service.paths.data_dir))
    )
    assert thread.start(), thread.error
    yield thread
    thread.stop()


@pytest.mark.slow
def test_a_write_through_mcp_appears_in_the_window(
    qtbot: QtBot,
    make_window: WindowFactory,
    service: MemoryService,
    api: ServerThread,
    tmp_path: Path,
) -> None:
    project_dir = tmp_path / "billing-api"
    project_dir.mkdir()
    scope = service.resolve_scope(cwd=str(project_dir), register=True)
    window = make_window(service, api=api, scope=scope)
    written: list[str] = []
    replied, seen = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    async def agent() -> None:
        args = ["--cwd", str(project_dir)]
        async with mcp_session(
            service.paths.data_dir, args, name="claude-code", stderr=tmp_path / "stderr.txt"
        ) as session:
            text, error = await session.call(
                "memory_write", {"action": "add", "content": "Staging deploys need the VPN"}
            )
            assert not error, text
            written.append(re.findall(r"mem_[0-9a-f]+", text)[0])
            replied.set()
            await anyio.to_thread.run_sync(seen.wait, 30)  # keep the session until checked

    def in_background() -> None:
        try:
            anyio.run(agent)
        except BaseException as exc:  # reported on the test's thread
            errors.append(exc)
            replied.set()

    thread = threading.Thread(target=in_background, name="mcp-agent")
    thread.start()
    try:
        qtbot.waitUntil(replied.is_set, timeout=60_000)  # the subprocess's start-up
        assert not errors, errors
        qtbot.waitUntil(lambda: window.table.model.row_of(written[0]) >= 0, timeout=2000)
        qtbot.waitUntil(
            lambda: "claude-code: memory.add" in window.status.last_label.text(), timeout=2000
        )
    finally:
        seen.set()
        thread.join(30)
    assert not errors, errors

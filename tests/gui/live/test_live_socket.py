"""The acceptance test for live updates: a real agent writes through the real socket."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from ltm_desktop.api.client import Client
from ltm_desktop.api.server import ServerOptions
from ltm_desktop.api.server_thread import ServerThread
from ltm_desktop.core.service import MemoryService
from tests.gui.conftest import BILLING, WindowFactory, add


@pytest.fixture
def api(service: MemoryService) -> Iterator[ServerThread]:
    folder = Path(tempfile.mkdtemp(prefix="ltm-gui-"))
    thread = ServerThread(service, service.paths.data_dir, ServerOptions(folder / "s.sock"))
    assert thread.start(), thread.error
    yield thread
    thread.stop()
    shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.slow
def test_agent_writes_over_the_socket_appear_live(
    qtbot: QtBot,
    make_window: WindowFactory,
    service: MemoryService,
    billing: str,
    api: ServerThread,
) -> None:
    existing = add(service, billing, "Existing memory the user has selected", importance=3)
    window = make_window(service, api=api, scope=billing)
    table = window.table
    qtbot.waitUntil(lambda: table.select_memory(existing.id))
    endpoint = api.server.endpoint
    assert endpoint is not None
    with Client(endpoint.socket_path, client_name="claude-code") as agent:
        added = agent.memory_add(
            "Agent learned: staging deploys need VPN", cwd=BILLING, importance=9
        )
        new_id = added["memory"]["id"]
        qtbot.waitUntil(lambda: table.model.row_of(new_id) >= 0, timeout=3000)
        assert table.selected_ids() == [existing.id]  # the user's selection is kept
        status = window.status
        qtbot.waitUntil(lambda: "claude-code: memory.add" in status.last_label.text(), timeout=3000)
        assert status.agents_label.text() == "1 agent connected"
        assert status.api_label.text() == f"API: unix:{endpoint.socket_path}"
        agent.memory_remove(new_id)
        qtbot.waitUntil(lambda: table.model.row_of(new_id) < 0, timeout=3000)
    qtbot.waitUntil(lambda: status.agents_label.text() == "no agents connected", timeout=3000)

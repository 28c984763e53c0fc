"""The window takes over the agent API when the `serve` process that held it stops,
and offers "Start API" / "Retry" while it cannot serve."""

from __future__ import annotations

import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from ltm_desktop.api.client import Client
from ltm_desktop.api.server import ServerOptions
from ltm_desktop.api.server_thread import ServerThread
from ltm_desktop.core.service import MemoryService
from tests.console import CONSOLE_SCRIPT
from tests.gui.conftest import WindowFactory


@pytest.fixture
def short_dir() -> Iterator[Path]:
    """A short directory for sockets (a Unix socket path has a ~100 byte limit)."""
    folder = Path(tempfile.mkdtemp(prefix="ltm-take-"))
    folder.chmod(0o700)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.slow
def test_the_window_takes_over_when_the_other_server_stops(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, short_dir: Path
) -> None:
    data_dir = Path(service.paths.data_dir)
    sock = short_dir / "app.sock"
    other = subprocess.Popen(
        [
            CONSOLE_SCRIPT,
            "--data-dir",
            str(data_dir),
            "serve",
            "--socket",
            str(short_dir / "o.sock"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    api = ServerThread(service, data_dir, ServerOptions(sock))
    try:
        assert other.stdout is not None
        assert "serving" in other.stdout.readline()
        assert not api.start()
        assert api.other_server
        window = make_window(service, api=api)
        status = window.status
        qtbot.waitUntil(lambda: "another ltm-desktop server serves" in status.api_label.text())
        assert status.start_button.isVisible()
        assert status.start_button.text() == "Start API"
        status.start_button.click()  # the other one still runs: nothing changes
        qtbot.waitUntil(lambda: api.error is not None and api.other_server)
        assert api.endpoint is None
        other.send_signal(signal.SIGTERM)
        assert other.wait(timeout=30) == 0
        qtbot.waitUntil(lambda: status.api_label.text() == f"API: unix:{sock}", timeout=10_000)
        assert "agents now reach this window" in status.currentMessage()
        assert not status.start_button.isVisible()
        with Client(sock, client_name="after-takeover") as client:
            client.memory_add("Written once the window took over", cwd="/srv/app")
        project = service.resolve_scope(cwd="/srv/app")
        assert [m.content for m in service.list_memories(project)] == [
            "Written once the window took over"
        ]
    finally:
        if other.poll() is None:
            other.kill()
        other.communicate()
        api.stop()


@pytest.mark.slow
def test_retry_starts_the_api_once_the_problem_is_fixed(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, short_dir: Path
) -> None:
    blocked = short_dir / "run"
    blocked.write_text("a file where the socket's directory should be")
    sock = blocked / "app.sock"
    api = ServerThread(service, Path(service.paths.data_dir), ServerOptions(sock))
    try:
        assert not api.start()
        assert not api.other_server
        window = make_window(service, api=api)
        status = window.status
        qtbot.waitUntil(lambda: status.api_label.text().startswith("Agent API not running"))
        assert status.start_button.text() == "Retry"
        assert status.start_button.isVisible()
        blocked.unlink()
        blocked.mkdir(mode=0o700)
        status.start_button.click()
        qtbot.waitUntil(lambda: status.api_label.text() == f"API: unix:{sock}", timeout=10_000)
        assert not status.start_button.isVisible()
        with Client(sock) as client:
            assert client.health()["ok"] is True
    finally:
        api.stop()

"""Every snippet of the connect dialog works as shown against the app's own server.

The app runs on a data dir of its own (as with ``--data-dir`` or ``--demo``), so its
socket is not the default one: each snippet is copied from the dialog and run in a
clean terminal-like environment (no data-dir or socket variable set).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from PySide6.QtGui import QGuiApplication
from pytestqt.qtbot import QtBot

from ltm_desktop import __version__
from ltm_desktop.api import PROTOCOL_VERSION
from ltm_desktop.api.runtime import ENV_SOCKET
from ltm_desktop.api.server_thread import ServerThread
from ltm_desktop.core.records import GLOBAL_PROJECT_ID
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.paths import ENV_DATA_DIR
from ltm_desktop.gui.dialogs.connect import ConnectDialog
from ltm_desktop.gui.mnemonics import mnemonic
from ltm_desktop.serve import server_options
from tests.agent.test_snippets import server_command
from tests.conftest import ServiceFactory
from tests.gui.conftest import FakeApi, WindowFactory, add

REPO = "/path/to/repo"  # the generated snippets' made-up working directory


@pytest.fixture
def app_service(make_service: ServiceFactory, tmp_path: Path) -> MemoryService:
    return make_service(tmp_path / "app-data")


@pytest.fixture
def app_api(app_service: MemoryService) -> Iterator[ServerThread]:
    """The agent API the way the app starts it (desktop.launch): the data dir's own socket."""
    data_dir = app_service.paths.data_dir
    thread = ServerThread(app_service, data_dir, server_options(data_dir, None, None))
    assert thread.start(), thread.error
    yield thread
    thread.stop()


def terminal_env() -> dict[str, str]:
    """A person's terminal: nothing says which data dir or socket the app uses."""
    env = {k: v for k, v in os.environ.items() if k not in (ENV_DATA_DIR, ENV_SOCKET)}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def copied(dialog: ConnectDialog, tab: str) -> list[str]:
    """What each Copy button of a tab puts on the clipboard."""
    index = [dialog.tabs.tabText(i) for i in range(dialog.tabs.count())].index(tab)
    page = dialog.tabs.widget(index)
    assert page is not None
    texts = []
    for button in dialog.copy_buttons:
        if page.isAncestorOf(button):
            button.click()
            texts.append(QGuiApplication.clipboard().text())
    assert texts, tab
    return texts


def open_dialog(
    make_window: WindowFactory, service: MemoryService, api: ServerThread
) -> ConnectDialog:
    window = make_window(service, api=api)
    return window.show_connect()


def test_python_and_command_line_snippets_reach_the_apps_socket(
    make_window: WindowFactory, app_service: MemoryService, app_api: ServerThread, tmp_path: Path
) -> None:
    """The Python snippet searches the window's project (read-only): it writes nothing."""
    repo = tmp_path / "repo"
    repo.mkdir()
    project = app_service.resolve_scope(cwd=str(repo), register=True)
    add(app_service, project, "Run the tests with make test")
    window = make_window(app_service, api=app_api, scope=project)
    dialog = window.show_connect()
    python, command_line, raw = copied(dialog, "Socket API")
    assert REPO not in python
    assert repr(str(repo)) in python
    assert "memory_add" not in python
    env = terminal_env()
    ran = subprocess.run(
        [sys.executable, "-c", python], env=env, capture_output=True, text=True, timeout=60
    )
    assert ran.returncode == 0, ran.stderr
    assert "Run the tests with make test" in ran.stdout
    assert [m.content for m in app_service.list_memories(project)] == [
        "Run the tests with make test"
    ]  # nothing written
    assert REPO not in command_line
    ran = subprocess.run(
        command_line, shell=True, env=env, capture_output=True, text=True, timeout=60
    )
    assert ran.returncode == 0, ran.stderr
    hits = json.loads(ran.stdout)
    assert "Run the tests with make test" in json.dumps(hits)
    endpoint = app_api.server.endpoint
    assert endpoint is not None
    assert shlex.split(raw.split("|", 1)[1]) == [
        "socat",
        "-",
        f"UNIX-CONNECT:{endpoint.socket_path}",
    ]
    if shutil.which("socat") is None:  # run the snippet as shown, with a stand-in for socat
        env["PATH"] = f"{stand_in_socat(tmp_path)}{os.pathsep}{env['PATH']}"
    ran = subprocess.run(raw, shell=True, env=env, capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)["result"]["db_path"] == str(app_service.paths.db_path)
    dialog.close()


def test_the_global_scopes_snippet_searches_from_the_home_folder(
    make_window: WindowFactory, app_service: MemoryService
) -> None:
    window = make_window(app_service, api=FakeApi(), scope=GLOBAL_PROJECT_ID)
    python = window.show_connect().python_snippet()
    assert f"cwd={str(Path.home())!r}" in python
    assert REPO not in python


def test_test_connection_reports_the_servers_version_protocol_and_memory_switch(
    qtbot: QtBot, make_window: WindowFactory, app_service: MemoryService, app_api: ServerThread
) -> None:
    window = make_window(app_service, api=app_api)
    dialog = window.show_connect()
    button = dialog.test_button
    assert mnemonic(button.text()) is not None  # an Alt key
    button.click()
    qtbot.waitUntil(lambda: "protocol" in dialog.check_result.text(), timeout=10000)
    text = dialog.check_result.text()
    assert f"ltm-desktop {__version__}" in text
    assert f"protocol {PROTOCOL_VERSION}" in text
    assert "memory on" in text
    assert "\n" not in text
    assert button.isEnabled()  # it can be pressed again
    dialog.close()


def test_test_connection_says_why_it_failed_in_one_line(
    qtbot: QtBot, make_window: WindowFactory, app_service: MemoryService, tmp_path: Path
) -> None:
    missing = tmp_path / "nobody.sock"
    window = make_window(app_service, api=FakeApi(endpoint=f"unix:{missing}"))
    dialog = window.show_connect()
    dialog.test_button.click()
    qtbot.waitUntil(lambda: "failed" in dialog.check_result.text().lower(), timeout=10000)
    text = dialog.check_result.text()
    assert str(missing) in text
    assert "\n" not in text
    assert "Traceback" not in text
    not_running = make_window(app_service, api=FakeApi(endpoint=None, error="address in use"))
    dialog = not_running.show_connect()
    dialog.test_button.click()
    qtbot.waitUntil(lambda: "address in use" in dialog.check_result.text(), timeout=10000)


def stand_in_socat(tmp_path: Path) -> Path:
    """A ``socat - UNIX-CONNECT:PATH`` for machines without socat: stdin to the socket,
    then the socket to stdout until the server closes it (what the snippet relies on)."""
    folder = tmp_path / "bin"
    folder.mkdir()
    script = folder / "socat"
    script.write_text(
        f"#!{sys.executable}\n"
        "import socket, sys\n"
        "assert sys.argv[1] == '-' and sys.argv[2].startswith('UNIX-CONNECT:'), sys.argv\n"
        "conn = socket.socket(socket.AF_UNIX)\n"
        "conn.connect(sys.argv[2].split(':', 1)[1])\n"
        "conn.sendall(sys.stdin.buffer.read())\n"
        "conn.shutdown(socket.SHUT_WR)\n"
        "while chunk := conn.recv(65536):\n"
        "    sys.stdout.buffer.write(chunk)\n",
        encoding="utf-8",
    )
    script.chmod(0o755)
    return folder


@pytest.mark.slow
@pytest.mark.parametrize("agent", ["Claude Code", "Cursor", "Codex"])
def test_mcp_snippets_write_through_the_apps_server(
    make_window: WindowFactory,
    app_service: MemoryService,
    app_api: ServerThread,
    agent: str,
    tmp_path: Path,
) -> None:
    from tests.agent.test_snippets import Snippet  # the parser reads each agent's format

    dialog = open_dialog(make_window, app_service, app_api)
    (text,) = copied(dialog, agent)
    syntax = {"Claude Code": "sh", "Cursor": "json", "Codex": "toml"}[agent]
    command = server_command(Snippet(agent, "", syntax, text))
    content = f"Written by {agent} through MCP"
    repo = tmp_path / "repo"
    repo.mkdir()

    async def scenario() -> None:
        params = StdioServerParameters(
            command=command[0], args=command[1:], env=terminal_env(), cwd=str(repo)
        )
        with anyio.fail_after(60), open(os.devnull, "w") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                result = await session.call_tool(
                    "memory_write", {"action": "add", "content": content}
                )
                assert not result.is_error, result

    anyio.run(scenario)
    project = app_service.resolve_scope(cwd=str(repo))
    assert content in [m.content for m in app_service.list_memories(project)]
    assert "memory" in (app_api.last_action() or "")  # it went through the app's server
    dialog.close()

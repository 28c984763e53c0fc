"""Tools never raise into the agent's loop: disabled, unavailable and broken all answer."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest

from ltm_desktop.agent.access import Unavailable
from ltm_desktop.agent.direct_access import DirectAccess
from ltm_desktop.agent.socket_access import SocketAccess
from ltm_desktop.agent.tools.toolbox import Toolbox
from ltm_desktop.api.client import Client
from ltm_desktop.api.server import ServerOptions
from ltm_desktop.api.server_thread import ServerThread
from ltm_desktop.core.errors import MemoryDisabled
from ltm_desktop.core.service import MemoryService
from tests.agent.conftest import CWD
from tests.conftest import ServiceFactory


class RaisingAccess:
    """An access whose every call raises ``error``."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    def describe(self) -> str:
        return "nowhere"

    def set_client(self, name: str) -> None:
        pass

    def call(self, method: str, params: dict[str, Any]) -> Any:
        raise self.error

    def close(self) -> None:
        pass


@pytest.mark.parametrize("tool", ["memory_write", "memory_search", "memory_forget"])
def test_disabled_memory_answers_so(tool: str) -> None:
    arguments = {
        "memory_write": {"action": "add", "content": "x"},
        "memory_search": {"query": "x"},
        "memory_forget": {"memoryIds": ["mem_1"]},
    }[tool]
    tools = Toolbox(tools="all", access=RaisingAccess(MemoryDisabled("off")))
    reply = tools.run(tool, arguments, CWD)
    assert (reply.text, reply.is_error) == ("Long-term memory is disabled", True)


def test_disabled_in_the_service_reaches_the_tool_in_process(
    service: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    def switched_off(*args: object, **kwargs: object) -> None:
        raise MemoryDisabled("memory is switched off")

    monkeypatch.setattr(service.search, "query", switched_off)
    tools = Toolbox(access=DirectAccess(service, "agent", close_service=False))
    assert tools.execute("memory_search", {"query": "x"}, CWD) == "Long-term memory is disabled"


def test_a_closed_database_is_unavailable(make_service: ServiceFactory, tmp_path: Path) -> None:
    service = make_service(tmp_path / "other")
    service.store.close()
    tools = Toolbox(access=DirectAccess(service, "agent", close_service=False))
    reply = tools.run("memory_search", {"query": "x"}, CWD)
    assert reply.is_error
    assert reply.text.startswith("Long-term memory is unavailable: database error on ")
    assert "closed database" in reply.text


def test_a_server_that_went_away_is_unavailable(service: MemoryService, tmp_path: Path) -> None:
    folder = Path(tempfile.mkdtemp(prefix="ltm-gone-"))
    thread = ServerThread(service, service.paths.data_dir, ServerOptions(folder / "s.sock"))
    assert thread.start(), thread.error
    access = SocketAccess(Client(folder / "s.sock", client_name="agent"))
    tools = Toolbox(access=access)
    try:
        assert not tools.run("memory_search", {"query": "x"}, CWD).is_error
        thread.stop()
        reply = tools.run("memory_search", {"query": "x"}, CWD)
    finally:
        access.close()
        shutil.rmtree(folder, ignore_errors=True)
    assert reply.is_error
    assert reply.text.startswith("Long-term memory is unavailable: ")
    assert "s.sock" in reply.text


def test_a_bug_is_reported_softly_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    tools = Toolbox(access=RaisingAccess(ZeroDivisionError("oops")))
    reply = tools.run("memory_search", {"query": "x"}, CWD)
    assert reply.is_error
    assert reply.text.startswith("Long-term memory is unavailable: an internal error")
    assert "bug in the memory tool memory_search" in caplog.text


def test_an_unopenable_database_is_unavailable_and_retried(tmp_path: Path) -> None:
    (tmp_path / "ltm.sqlite").write_text("my notes, not a database")
    tools = Toolbox(data_dir=tmp_path)
    first = tools.run("memory_search", {"query": "x"}, CWD)
    assert first.is_error
    assert first.text.startswith("Long-term memory is unavailable: ")
    assert "not an SQLite database" in first.text
    (tmp_path / "ltm.sqlite").unlink()  # the user fixed it: the next call opens it
    try:
        assert not tools.run("memory_search", {"query": "x"}, CWD).is_error
    finally:
        tools.close()


def test_unavailable_is_what_open_access_raises(tmp_path: Path) -> None:
    from ltm_desktop.agent.connect import open_access

    (tmp_path / "ltm.sqlite").write_text("not a database")
    with pytest.raises(Unavailable, match="not an SQLite database"):
        open_access(tmp_path, None, "agent")

"""Which access the tools use: the server of this data dir if one runs, else the database."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from ltm_desktop.agent.connect import open_access
from ltm_desktop.agent.direct_access import DirectAccess
from ltm_desktop.agent.socket_access import SocketAccess
from ltm_desktop.api.server import ServerOptions
from ltm_desktop.api.server_thread import ServerThread
from ltm_desktop.core.service import MemoryService
from ltm_desktop.serve import socket_for
from tests.conftest import ServiceFactory


@pytest.fixture
def served(service: MemoryService) -> Iterator[ServerThread]:
    """A server on the data dir's own socket, where ``ltm-desktop call`` looks for it."""
    thread = ServerThread(
        service, service.paths.data_dir, ServerOptions(socket_for(service.paths.data_dir))
    )
    assert thread.start(), thread.error
    yield thread
    thread.stop()


def test_the_server_of_the_data_dir_is_used(service: MemoryService, served: ServerThread) -> None:
    access = open_access(service.paths.data_dir, None, "claude-code")
    try:
        assert isinstance(access, SocketAccess)
        project = access.call("project.resolve", {"cwd": "/home/dev/src/shop"})
        added = access.call("memory.add", {"cwd": "/home/dev/src/shop", "content": "via socket"})
    finally:
        access.close()
    assert project["name"] == "shop"
    assert service.get(added["memory"]["id"]).source == "claude-code"


def test_without_a_server_the_database_is_opened_here(tmp_path: Path) -> None:
    access = open_access(tmp_path / "data", None, "claude-code")
    try:
        assert isinstance(access, DirectAccess)
        assert access.describe() == f"database {tmp_path / 'data' / 'ltm.sqlite'}"
    finally:
        access.close()


def test_a_server_of_another_data_dir_is_not_used(
    make_service: ServiceFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = make_service(tmp_path / "other")
    folder = Path(tempfile.mkdtemp(prefix="ltm-other-"))
    thread = ServerThread(other, other.paths.data_dir, ServerOptions(folder / "s.sock"))
    assert thread.start(), thread.error
    monkeypatch.setenv("LTM_DESKTOP_SOCKET", str(folder / "s.sock"))
    try:
        access = open_access(tmp_path / "mine", None, "agent")
        try:
            assert isinstance(access, DirectAccess)
        finally:
            access.close()
    finally:
        thread.stop()
        shutil.rmtree(folder, ignore_errors=True)


def test_set_client_renames_the_writer(service: MemoryService, served: ServerThread) -> None:
    access = open_access(service.paths.data_dir, None, "mcp-client")
    try:
        access.set_client("cursor")
        added = access.call("memory.add", {"cwd": "/home/dev/src/app", "content": "renamed"})
    finally:
        access.close()
    assert service.history.memory(added["memory"]["id"])[0].actor == "cursor"

"""The memory tools over both accesses: a real server's socket, and in-process."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ltm_desktop.agent.access import MemoryAccess
from ltm_desktop.agent.direct_access import DirectAccess
from ltm_desktop.agent.socket_access import SocketAccess
from ltm_desktop.agent.tools.handlers import SEARCH_META
from ltm_desktop.agent.tools.toolbox import Toolbox
from ltm_desktop.api.client import Client
from ltm_desktop.api.server import ServerOptions
from ltm_desktop.api.server_thread import ServerThread
from ltm_desktop.core.service import MemoryService
from tests.agent.fake_model import fake_model  # noqa: F401 - a fixture for the extractor tests

CWD = "/home/dev/src/billing-api"
OTHER = "/home/dev/src/shop"
CLIENT = "test-agent"


@dataclass
class Memory:
    """The tools of one access, and the service behind them (to check what they did)."""

    tools: Toolbox
    service: MemoryService
    path: str

    def run(self, name: str, cwd: str = CWD, **arguments: Any) -> Any:
        """The reply's text; asserts the tool succeeded."""
        reply = self.tools.run(name, arguments, cwd)
        assert not reply.is_error, reply.text
        return reply.text

    def listing(self, name: str, cwd: str = CWD, **arguments: Any) -> list[dict[str, Any]]:
        """The JSON array that is a search's or recall's whole text; its meta names the
        project searched."""
        reply = self.tools.run(name, arguments, cwd)
        assert not reply.is_error, reply.text
        assert reply.meta is not None
        assert reply.meta[SEARCH_META]["project_id"].startswith("proj_")
        rows: list[dict[str, Any]] = json.loads(reply.text)
        assert isinstance(rows, list)
        return rows

    def project(self, cwd: str = CWD) -> str:
        return self.service.resolve_scope(cwd=cwd, register=True)


@pytest.fixture
def socket_dir() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="ltm-agent-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _access(kind: str, service: MemoryService, socket_dir: Path) -> Iterator[MemoryAccess]:
    if kind == "direct":
        access: MemoryAccess = DirectAccess(service, CLIENT, close_service=False)
        yield access
        access.close()
        return
    thread = ServerThread(service, service.paths.data_dir, ServerOptions(socket_dir / "s.sock"))
    assert thread.start(), thread.error
    access = SocketAccess(Client(socket_dir / "s.sock", client_name=CLIENT))
    yield access
    access.close()
    thread.stop()


@pytest.fixture(params=["socket", "direct"])
def memory(
    request: pytest.FixtureRequest, service: MemoryService, socket_dir: Path
) -> Iterator[Memory]:
    """The five tools over the socket of a running server, then in-process."""
    for access in _access(request.param, service, socket_dir):
        yield Memory(Toolbox(tools="all", access=access), service, request.param)

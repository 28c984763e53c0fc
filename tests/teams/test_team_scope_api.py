"""``project_id: "global"`` and ``"team"`` on the socket, with the global scope shared and
per person; and the agents' tools of two people on one store (docs/teams.md)."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from ltm_desktop.agent.access import MemoryAccess
from ltm_desktop.agent.direct_access import DirectAccess
from ltm_desktop.agent.socket_access import SocketAccess
from ltm_desktop.agent.tools.handlers import SEARCH_META
from ltm_desktop.agent.tools.toolbox import Toolbox
from ltm_desktop.api.client import Client, InvalidParams
from ltm_desktop.api.server import ServerOptions
from ltm_desktop.api.server_thread import ServerThread
from ltm_desktop.core.records import MemoryDraft
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.config import Settings
from tests.conftest import DataDirDatabases, FakeClock, ServiceFactory
from tests.teams.people import Open, open_people

pytestmark = pytest.mark.every_backend

CWD = "/home/dev/src/shop"


@pytest.fixture
def open_as(
    backend: str, tmp_path: Path, clock: FakeClock, data_dir_databases: DataDirDatabases
) -> Iterator[Open]:
    yield from open_people(backend, tmp_path, clock, data_dir_databases)


@contextmanager
def serving(service: MemoryService, sock: Path) -> Iterator[None]:
    thread = ServerThread(service, service.paths.data_dir, ServerOptions(sock))
    assert thread.start(), thread.error
    try:
        yield
    finally:
        thread.stop()


@pytest.mark.parametrize("mode", ["shared", "personal"])
def test_global_and_team_on_the_socket(
    mode: str, make_service: ServiceFactory, socket_dir: Path
) -> None:
    service = make_service(settings=Settings(people_global=mode))
    with (
        serving(service, socket_dir / "s.sock"),
        Client(socket_dir / "s.sock", client_name="test-agent") as client,
    ):
        mine = client.memory_add("I prefer kafka over rabbitmq", project_id="global")["memory"]
        team = client.memory_add("The team names kafka topics with dots", project_id="team")
        assert team["memory"]["project_id"] == "global"  # the shared scope's stored id
        if mode == "personal":
            assert mine["project_id"].startswith("person_")
        else:
            assert mine["project_id"] == "global"
        resolved = client.project_resolve(CWD)
        expected = [resolved["project_id"], *dict.fromkeys([mine["project_id"], "global"])]
        assert resolved.get("scopes") == expected
        hits = client.memory_search("kafka", cwd=CWD)
        assert {h["memory"]["id"] for h in hits} == {mine["id"], team["memory"]["id"]}
        total = 1 if mode == "personal" else 2
        assert client.memory_list(project_id="global")["total"] == total
        assert client.memory_list(project_id="team")["total"] == total
        assert "kafka" in client.precis_get(project_id="global")["text"]
        with pytest.raises(InvalidParams) as refused:
            client.memory_add("nowhere", project_id="teams")
        assert "project_id" in str(refused.value)


def test_tools_search_and_edit_their_persons_and_the_teams_only(
    open_as: Open, socket_dir: Path
) -> None:
    alice, bob = open_as("alice"), open_as("bob")
    mine = alice.add(
        alice.ambient.personal, MemoryDraft("Alice prefers kafka consumers in Go"), "gui"
    ).memory
    team = alice.add("global", MemoryDraft("The team pins kafka clients"), "gui").memory
    with serving(bob, socket_dir / "s.sock"):
        accesses: list[MemoryAccess] = [
            DirectAccess(bob, "test-agent", close_service=False),
            SocketAccess(Client(socket_dir / "s.sock", client_name="test-agent")),
        ]
        for access in accesses:
            tools = Toolbox(tools="all", access=access)
            try:
                reply = tools.run("memory_search", {"query": "kafka"}, CWD)
                rows = json.loads(reply.text)
                assert [r["id"] for r in rows] == [team.id]
                assert reply.meta is not None
                scopes = reply.meta[SEARCH_META]["scopes"]
                assert scopes[1:] == [bob.ambient.personal, "global"]
                edited = tools.run(
                    "memory_write", {"action": "update", "id": team.id, "importance": 5}, CWD
                )
                assert not edited.is_error, edited.text
                refused = tools.run(
                    "memory_write", {"action": "update", "id": mine.id, "importance": 5}, CWD
                )
                assert refused.is_error
                assert "Global (alice@laptop)" in refused.text
            finally:
                access.close()
    assert alice.get(mine.id).importance == mine.importance


@pytest.fixture
def socket_dir() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="ltm-team-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)

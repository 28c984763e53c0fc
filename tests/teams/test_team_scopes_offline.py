"""Offline with a global scope per person: a queued write to "global" goes to the
person's own scope (its row made, named for them, at the replay), one to "team" to the
shared one, and the read cache keeps both (docs/teams.md). The database here is SQLite
(it is always there): the outbox is told the server is away, as its probe would say."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from ltm_desktop.api.methods import Dispatcher, Session
from ltm_desktop.api.protocol import Request
from ltm_desktop.core.records import GLOBAL_PROJECT_ID
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.config import Settings
from ltm_desktop.outbox import LocalOutbox
from ltm_desktop.outbox.replay import Outcome, replay
from tests.conftest import ServiceFactory, make_draft
from tests.teams.people import person

DOWN = "cannot reach PostgreSQL at db:5432/ltm: connection refused"
SHOP = "/home/dev/src/shop"


@pytest.fixture
def alice(make_service: ServiceFactory) -> MemoryService:
    return make_service(settings=Settings(people_global="personal"), identity=person("alice"))


@pytest.fixture
def outbox(alice: MemoryService) -> Iterator[LocalOutbox]:
    box = LocalOutbox(alice.paths.data_dir, lambda: DOWN, offline=DOWN)
    alice.offline = box
    yield box
    box.close()


def _call(service: MemoryService, method: str, **params: Any) -> Any:
    session = Session("unix", client="laptop-agent")
    return Dispatcher(service).dispatch(Request(method, params, 1, False), session)


def test_queued_global_and_team_writes_keep_their_scopes(
    alice: MemoryService, outbox: LocalOutbox
) -> None:
    mine = alice.ambient.personal
    team = alice.add(GLOBAL_PROJECT_ID, make_draft("The team pins kafka clients"), "gui").memory
    outbox.start(alice)  # the ambient scopes are mirrored: every search includes them
    assert {mine, GLOBAL_PROJECT_ID} <= {scope for scope, _ in outbox.mirror.scopes()}
    outbox.mirror.replace(GLOBAL_PROJECT_ID, [team], alice.now())

    own = _call(alice, "memory.add", project_id="global", content="I prefer kafka in Go")
    shared = _call(alice, "memory.add", project_id="team", content="The team uses kafka 3")
    assert own["status"] == shared["status"] == "queued"
    assert {w.memory_id: w.project_id for w in outbox.queued()} == {
        own["memory"]["id"]: mine,
        shared["memory"]["id"]: GLOBAL_PROJECT_ID,
    }
    found = _call(alice, "memory.search", cwd=SHOP, query="kafka")
    assert found["stale"] is True
    assert {h["memory"]["id"] for h in found["hits"]} == {
        team.id,
        own["memory"]["id"],
        shared["memory"]["id"],
    }

    for write in outbox.queued():  # the server is back: the replay, in order
        assert replay(alice, write).outcome is Outcome.APPLIED
    assert [m.content for m in alice.list_memories(mine)] == ["I prefer kafka in Go"]
    assert alice.store.get_project(mine).name == "Global (alice@laptop)"
    assert len(alice.list_memories(GLOBAL_PROJECT_ID)) == 2

"""A merge proposal over the API: ``inbox.list`` carries the group's ids and memories,
``inbox.approve`` supersedes them (the dispatcher the socket and MCP tools share)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from ltm_desktop.agent.direct_access import DirectAccess
from ltm_desktop.core.consolidation.consolidator import Consolidator
from ltm_desktop.core.records import Memory, MemoryDraft
from tests.conftest import ServiceFactory
from tests.doubles.embedders import WordHashEmbedder

pytestmark = pytest.mark.every_backend

CWD = "/home/dev/src/shop"
TEXTS = [
    "Run the unit tests with make test before pushing to main",
    "Before a push to the main branch, the unit tests must run via make test",
]


class Writer:
    model = "fake-merger"

    def write(self, members: Sequence[Memory]) -> object:
        return {"title": "Test first", "content": "Run make test before every push to main."}


def test_inbox_list_carries_the_group_and_approve_supersedes_it(
    make_service: ServiceFactory,
) -> None:
    service = make_service(embedder=WordHashEmbedder())
    project = service.resolve_scope(cwd=CWD, register=True)
    ids = [service.add(project, MemoryDraft(content=t), "gui").memory.id for t in TEXTS]
    Consolidator(service.inbox, WordHashEmbedder(), Writer()).run(project)
    access = DirectAccess(service, "reviewer", close_service=False)
    [item] = access.call("inbox.list", {"cwd": CWD})["items"]
    assert sorted(item["proposal"]["merges"]) == sorted(ids)
    assert sorted(m["id"] for m in item["members"]) == sorted(ids)
    approved = access.call("inbox.approve", {"id": item["proposal"]["id"]})
    assert approved["proposal"]["merges"] == item["proposal"]["merges"]
    assert {service.get(i).superseded_by for i in ids} == {approved["memory"]["id"]}

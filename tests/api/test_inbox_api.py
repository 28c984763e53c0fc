"""The extractor and the review inbox over the socket: extract, extract.runs, inbox.*."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ltm_desktop.agent.extractor.worker import ExtractionWorker
from ltm_desktop.api.client import Client, ConflictError, InvalidParams
from ltm_desktop.core.records import MemoryDraft
from tests.agent.fake_model import FakeModel
from tests.agent.fake_model import fake_model as fake_model  # a fixture
from tests.api.conftest import ServerFactory, wait_until
from tests.conftest import ServiceFactory

pytestmark = pytest.mark.every_backend

CWD = "/home/dev/src/shop"
ENTRIES = [
    {"title": "Deploy", "content": "Deploy with make deploy from main", "importance": 7},
    {"title": "Tabs", "content": "The user wants tabs in Go code", "category": "preference"},
]


@pytest.fixture
def inbox_client(
    make_service: ServiceFactory, fake_model: FakeModel, start_server: ServerFactory
) -> Client:
    fake_model.behaviour.reply = json.dumps(ENTRIES)
    service = make_service(settings=fake_model.settings(extractor_review=True))
    service.extraction = ExtractionWorker(service)
    server = start_server(service)
    assert server.server.endpoint is not None
    return Client(server.server.endpoint.socket_path, client_name="reviewer")


def test_extract_answers_at_once_and_the_run_can_be_followed(
    inbox_client: Client, tmp_path: Path
) -> None:
    with inbox_client as client:
        started = client.extract(cwd=CWD, text="We deploy with make deploy.", session_id="s1")
        assert started["started"] is True
        assert started["run_id"] is not None
        wait_until(lambda: bool(client.extract_runs(cwd=CWD)))
        [run] = client.extract_runs(cwd=CWD)
        assert (run["id"], run["status"], run["proposed"]) == (started["run_id"], "ok", 2)
        assert (run["agent"], run["session_id"], run["source"]) == ("reviewer", "s1", "text")
        page = client.inbox_list(cwd=CWD)
        assert page["total"] == 2
        item = page["items"][0]
        assert item["kind"] == "proposal"
        assert item["proposal"]["provenance"]["model"] == "fake-model"
        assert client.memory_list(cwd=CWD)["total"] == 0  # proposals are not memories


def test_approve_reject_and_reopen(inbox_client: Client) -> None:
    with inbox_client as client:
        near = client.memory_add("Deploy with make deploy from the main branch", cwd=CWD)
        client.extract(cwd=CWD, text="conversation")
        wait_until(lambda: client.inbox_list(cwd=CWD)["total"] == 2)
        items = {i["proposal"]["title"]: i for i in client.inbox_list(cwd=CWD)["items"]}
        deploy, tabs = items["Deploy"], items["Tabs"]
        similar = deploy["similar"]
        assert similar is not None
        assert similar["memory"]["id"] == near["memory"]["id"]
        assert 0.7 < similar["similarity"] < 1
        seen = deploy["proposal"]["updated_at"]
        approved = client.inbox_approve(
            deploy["proposal"]["id"], expected_updated_at=seen, importance=9
        )
        assert approved["status"] == "superseded"
        assert approved["memory"]["importance"] == 9
        assert approved["memory"]["source"] == "extractor"
        with pytest.raises(ConflictError) as info:
            client.inbox_approve(deploy["proposal"]["id"], expected_updated_at=seen)
        assert info.value.reason == "stale"
        rejected = client.inbox_reject(tabs["proposal"]["id"])
        assert rejected["proposal"]["state"] == "rejected"
        assert client.inbox_list(cwd=CWD)["total"] == 0
        client.inbox_reopen(deploy["proposal"]["id"], expected_updated_at=approved["updated_at"])
        client.inbox_reopen(tabs["proposal"]["id"])
        assert client.inbox_list()["total"] == 2
        assert [m["id"] for m in client.memory_list(cwd=CWD)["memories"]] == [near["memory"]["id"]]
        history = client.memory_history(deploy["proposal"]["id"])
        assert [(e["action"], e["actor"]) for e in history] == [
            ("proposed", "extractor"),
            ("approved", "reviewer"),
            ("reopened", "reviewer"),
        ]


def test_unreviewed_memories_are_in_the_inbox_too(
    make_service: ServiceFactory, start_server: ServerFactory
) -> None:
    from ltm_desktop.core.inbox.extraction import new_run_id
    from ltm_desktop.core.records import Provenance

    service = make_service()
    project = service.resolve_scope(cwd=CWD, register=True)
    source = Provenance(new_run_id(service.now()), "codex", "s", "text", "m", service.now())
    service.inbox.store_extraction(
        project, ENTRIES[:1], source, review=False, started_at=service.now()
    )
    service.add(project, MemoryDraft(content="written by a person"), "gui")
    server = start_server(service)
    assert server.server.endpoint is not None
    with Client(server.server.endpoint.socket_path) as client:
        [item] = client.inbox_list(project_id=project)["items"]
        assert item["kind"] == "memory"
        assert item["memory"]["review_state"] == "unreviewed"
        done = client.inbox_approve(item["memory"]["id"])
        assert done["memory"]["review_state"] is None
        assert client.inbox_list()["items"] == []


def test_extract_without_an_extractor_says_so(client: Client) -> None:
    started = client.extract(cwd=CWD, text="anything")
    assert started["started"] is False
    assert "no extractor" in (started["reason"] or "")


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"text": "a", "observation_id": "obs_1"}, "exactly one of"),
        ({}, "exactly one of"),
        ({"transcript_path": "relative/t.jsonl"}, "must be an absolute path"),
        ({"transcript_path": "/nonexistent/t.jsonl"}, "is not a readable file"),
        ({"text": "a", "wat": 1}, "wat"),
    ],
)
def test_extract_refuses_bad_params(
    client: Client, params: dict[str, object], message: str
) -> None:
    with pytest.raises(InvalidParams, match=message):
        client.call("extract", {"cwd": CWD, **params})


def test_approve_into_another_scope(inbox_client: Client) -> None:
    with inbox_client as client:
        client.extract(cwd=CWD, text="conversation")
        wait_until(lambda: client.inbox_list(cwd=CWD)["total"] == 2)
        items = {i["proposal"]["title"]: i for i in client.inbox_list(cwd=CWD)["items"]}
        tabs = items["Tabs"]["proposal"]["id"]
        with pytest.raises(InvalidParams) as refused:
            client.call("inbox.approve", {"id": tabs, "into_project_id": 7})
        assert "into_project_id" in str(refused.value)
        approved = client.call("inbox.approve", {"id": tabs, "into_project_id": "global"})
        # "global" is the person's own global scope (``global`` itself when it is shared)
        owner = approved["memory"]["project_id"]
        assert owner == "global" or owner.startswith("person_")
        assert client.memory_list(project_id="global")["total"] == 1
        assert client.memory_list(cwd=CWD)["total"] == 0

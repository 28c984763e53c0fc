"""The API's answers while the outbox queues: ``"status": "queued"`` with a minted id,
checked like any write; reads from the read cache with the queued writes over it, marked
stale; ``health`` saying "offline — N changes waiting". The database here is SQLite (it is
always there): the outbox is told the server is away, as its probe would say."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ltm_desktop.api.methods import Dispatcher, Session
from ltm_desktop.api.protocol import INVALID_PARAMS, NOT_FOUND, Request, RpcError
from ltm_desktop.core import rules
from ltm_desktop.core.records import ListQuery
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.config import Settings
from ltm_desktop.outbox import LocalOutbox
from tests.conftest import ServiceFactory, make_draft

DOWN = "cannot reach PostgreSQL at db:5432/ltm: connection refused"


@pytest.fixture
def outbox(service: MemoryService) -> Iterator[LocalOutbox]:
    box = LocalOutbox(service.paths.data_dir, lambda: DOWN, offline=DOWN)
    service.offline = box
    yield box
    box.close()


def _call(service: MemoryService, method: str, **params: Any) -> Any:
    session = Session("unix", client="laptop-agent")
    return Dispatcher(service).dispatch(Request(method, params, 1, False), session)


def test_an_add_is_queued_with_an_id_that_it_keeps(
    service: MemoryService, outbox: LocalOutbox
) -> None:
    result = _call(service, "memory.add", project_id="global", content="Use uv, not pip")
    assert result["status"] == "queued"
    memory_id = result["memory"]["id"]
    assert memory_id.startswith("mem_")
    assert "outbox" in result["warning"]
    (queued,) = outbox.queued()
    assert queued.memory_id == memory_id
    assert queued.actor == "laptop-agent"
    assert service.count_memories("global", ListQuery()) == 0  # nothing written yet


def test_a_bad_write_is_refused_not_queued(service: MemoryService, outbox: LocalOutbox) -> None:
    with pytest.raises(RpcError) as raised:
        _call(service, "memory.add", project_id="global", content="   ")
    assert raised.value.code == INVALID_PARAMS
    with pytest.raises(RpcError) as raised:
        _call(service, "memory.update", id="mem_unknown", content="new text")
    assert raised.value.code == NOT_FOUND  # not in this machine's cache: nothing to base it on
    assert outbox.queued() == []


def test_reads_answer_from_the_cache_with_the_queued_writes_marked_stale(
    service: MemoryService, outbox: LocalOutbox
) -> None:
    known = service.add("global", make_draft("Tests run with make check"), "agent").memory
    outbox.mirror.replace("global", [known], service.now())
    added = _call(service, "memory.add", project_id="global", content="Lint with ruff check")
    edited = _call(service, "memory.update", id=known.id, content="Tests run with make test")
    assert edited["status"] == "queued"
    assert edited["memory"]["content"] == "Tests run with make test"
    (update,) = [w for w in outbox.queued() if w.memory_id == known.id]
    assert update.base_version == known.updated_at  # what this machine saw

    listed = _call(service, "memory.list", project_id="global")
    assert listed["stale"] is True
    assert "stale" in listed["warning"]
    assert {m["id"] for m in listed["memories"]} == {known.id, added["memory"]["id"]}
    found = _call(service, "memory.search", project_id="global", query="ruff")
    assert [h["memory"]["id"] for h in found["hits"]] == [added["memory"]["id"]]
    got = _call(service, "memory.get", id=known.id)
    assert got["memory"]["content"] == "Tests run with make test"
    assert got["stale"] is True


def test_health_says_offline_with_the_changes_waiting(
    service: MemoryService, outbox: LocalOutbox
) -> None:
    _call(service, "memory.add", project_id="global", content="One fact")
    _call(service, "memory.add", project_id="global", content="Another, unrelated")
    health = _call(service, "health")
    assert health["outbox"]["offline"] is True
    assert health["outbox"]["waiting"] == 2
    assert health["outbox"]["oldest_age_s"] is not None
    assert health["outbox"]["text"].startswith("offline — 2 changes waiting")
    assert health["detail"].startswith("offline — 2 changes waiting")


def test_replay_writes_them_in_order_once_the_server_answers(
    service: MemoryService, outbox: LocalOutbox
) -> None:
    ids = [
        _call(service, "memory.add", project_id="global", content=text)["memory"]["id"]
        for text in ("Alpha ships first", "Then the beta of the parser", "Gamma rays last")
    ]
    outbox._set_problem(None)  # the probe would now say the server answers
    outbox._service = service
    assert outbox.replay_all() == 3
    assert outbox.queued() == []
    assert not outbox.queueing()
    stored = [service.get(i) for i in ids]
    assert [m.created_at for m in stored] == sorted(m.created_at for m in stored)
    assert _call(service, "health")["outbox"]["text"] == ""


def test_a_project_resolves_offline_by_the_identity_setting(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    """The agent tools resolve their project first: offline, a clone of a repository is
    still the repository's project (no database read), a folder without a remote its
    path's."""
    clone = tmp_path / "work" / "shop"
    clone.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(clone)], check=True)
    subprocess.run(
        ["git", "-C", str(clone), "remote", "add", "origin", "git@github.com:acme/shop.git"],
        check=True,
    )
    plain = tmp_path / "scratch"
    plain.mkdir()
    service = make_service(settings=Settings(projects_identity="remote"))
    box = LocalOutbox(service.paths.data_dir, lambda: DOWN, offline=DOWN)
    service.offline = box
    try:
        online = service.resolve_scope(cwd=str(clone))
        answer = _call(service, "project.resolve", cwd=str(clone / "src"))
        assert answer["project_id"] == online
        assert answer["project_id"].startswith("repo_")
        assert answer["path"] == str(clone)
        other = _call(service, "project.resolve", cwd=str(plain))
        assert other["project_id"] == rules.project_id_for_cwd(str(plain))
    finally:
        box.close()

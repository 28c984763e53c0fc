"""``request_extraction``: back at once, fail-open; the server queues it when one serves
the data dir, else a detached ``ltm-desktop extract`` process runs it; without an
extractor configured, nothing connects and nothing starts."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ltm_desktop.agent import extraction_trigger
from ltm_desktop.agent.extraction_trigger import request_extraction
from ltm_desktop.agent.extractor.worker import ExtractionWorker
from ltm_desktop.api.runtime import ENV_SOCKET
from ltm_desktop.core.inbox.proposals import RunStatus
from tests.agent.fake_model import FakeModel
from tests.api.conftest import ServerFactory, short_dir  # noqa: F401 - fixtures
from tests.api.conftest import start_server as start_server  # a fixture
from tests.conftest import ServiceFactory
from tests.fifo import call_beside_fifo

FIXTURE = Path(__file__).parents[1] / "fixtures" / "claude-code-transcript.jsonl"
CWD = "/home/dev/src/billing-api"
REPLY = json.dumps([{"title": "Tests", "content": "Run the tests with make test."}])


def config_file(path: Path, fake: FakeModel | None) -> Path:
    text = "[extractor]\nreview = true\n"
    if fake is not None:
        text += f'base_url = "{fake.base_url}"\nmodel = "fake-model"\n'
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def children() -> Iterator[list[subprocess.Popen[bytes]]]:
    """The detached processes a test started, waited for at its end."""
    before = len(extraction_trigger._spawned)
    started = extraction_trigger._spawned
    yield started
    for child in started[before:]:
        child.wait(60)
    del started[before:]


def ask(tmp_path: Path, config: Path | None) -> float:
    """Call request_extraction; returns how long it took."""
    began = time.monotonic()
    request_extraction(
        transcript=FIXTURE,
        agent="claude-code",
        cwd=CWD,
        session_id="6f1d2c3b",
        data_dir=str(tmp_path / "data"),
        config=None if config is None else str(config),
    )
    return time.monotonic() - began


def test_without_an_extractor_nothing_connects_and_nothing_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, children: list[Any]
) -> None:
    connected: list[object] = []
    spawned: list[object] = []
    real_connect = socket.socket.connect

    def connect(sock: socket.socket, address: Any) -> None:
        connected.append(address)
        real_connect(sock, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(subprocess, "Popen", lambda *a, **k: spawned.append(a))
    for config in (None, config_file(tmp_path / "c.toml", None)):
        ask(tmp_path, config)
    assert connected == []
    assert spawned == []
    assert not (tmp_path / "data").exists()


def test_a_running_server_queues_it(
    tmp_path: Path,
    fake_model: FakeModel,
    make_service: ServiceFactory,
    start_server: ServerFactory,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    children: list[Any],
) -> None:
    fake_model.behaviour.reply = REPLY
    config = config_file(tmp_path / "c.toml", fake_model)
    service = make_service(tmp_path / "data", fake_model.settings(extractor_review=True))
    worker = service.extraction = ExtractionWorker(service)
    server = start_server(service)
    assert server.server.endpoint is not None
    monkeypatch.setenv(ENV_SOCKET, str(server.server.endpoint.socket_path))
    spawned = len(children)
    assert ask(tmp_path, config) < 1.0
    assert worker.wait_idle(30)
    [run] = service.inbox.runs()
    assert (run.status, run.proposed, run.session_id) == (RunStatus.OK, 1, "6f1d2c3b")
    assert run.source == str(FIXTURE)
    assert len(children) == spawned  # no process was started


def test_without_a_server_a_detached_process_runs_it(
    tmp_path: Path, fake_model: FakeModel, make_service: ServiceFactory, children: list[Any]
) -> None:
    fake_model.behaviour.reply = REPLY
    config = config_file(tmp_path / "c.toml", fake_model)
    (tmp_path / "data").mkdir(mode=0o700)
    assert ask(tmp_path, config) < 1.0
    child = children[-1]
    assert child.wait(60) == 0
    assert (tmp_path / "data" / "logs" / "extract.log").stat().st_mode & 0o777 == 0o600
    service = make_service(tmp_path / "data")
    [run] = service.inbox.runs()
    assert (run.status, run.agent, run.proposed) == (RunStatus.OK, "claude-code", 1)
    assert [e.proposal.title for e in service.inbox.entries() if e.proposal] == ["Tests"]


def test_it_never_raises(
    tmp_path: Path, fake_model: FakeModel, monkeypatch: pytest.MonkeyPatch, children: list[Any]
) -> None:
    def broken(*args: object) -> None:
        raise RuntimeError("the socket layer is broken")

    monkeypatch.setattr("ltm_desktop.agent.connect.find_server", broken)
    ask(tmp_path, config_file(tmp_path / "c.toml", fake_model))  # logged, not raised
    request_extraction(
        transcript=None, agent="x", cwd=CWD, session_id="s", data_dir=None, config=None
    )


def test_a_fifo_as_the_extraction_log_holds_nothing_up(
    tmp_path: Path, fake_model: FakeModel, make_service: ServiceFactory, children: list[Any]
) -> None:
    """Opening a FIFO to append waits for a reader: the hook waited until its deadline
    and no extraction started. Now the child runs, its stderr to /dev/null."""
    fake_model.behaviour.reply = REPLY
    config = config_file(tmp_path / "c.toml", fake_model)
    log = tmp_path / "data" / "logs" / "extract.log"
    log.parent.mkdir(parents=True, mode=0o700)
    os.mkfifo(log)
    waited, took = call_beside_fifo(lambda: ask(tmp_path, config), log, os.O_RDONLY)
    assert not waited, "still waiting for a reader after 5 s"
    assert isinstance(took, float)
    assert children[-1].wait(60) == 0
    [run] = make_service(tmp_path / "data").inbox.runs()
    assert (run.status, run.proposed) == (RunStatus.OK, 1)

"""Extractions in the background: submit returns at once, one thread runs them in turn."""

from __future__ import annotations

import json
import threading

import pytest

from ltm_desktop.agent.extractor.worker import ExtractionBusy, ExtractionWorker
from ltm_desktop.core.errors import LtmError
from ltm_desktop.core.inbox.extraction import new_run_id
from ltm_desktop.core.inbox.proposals import ExtractionRequest, RunStatus
from ltm_desktop.core.seams import ExtractorOff
from ltm_desktop.core.service import MemoryService
from tests.agent.fake_model import FakeModel
from tests.conftest import ServiceFactory


def text_request(
    service: MemoryService, text: str = "We deploy with make deploy."
) -> ExtractionRequest:
    return ExtractionRequest(
        project_id=service.resolve_scope(cwd="/home/dev/src/shop", register=True),
        agent="codex",
        session_id="s9",
        run_id=new_run_id(service.now()),
        text=text,
    )


def test_a_submitted_request_runs_in_the_background_and_is_recorded(
    make_service: ServiceFactory, fake_model: FakeModel
) -> None:
    fake_model.behaviour.reply = json.dumps([{"content": "Deploy with make deploy"}])
    service = make_service(settings=fake_model.settings(extractor_review=True))
    worker = service.extraction = ExtractionWorker(service)
    request = text_request(service)
    worker.submit(request)
    assert worker.wait_idle(10)
    [run] = service.inbox.runs()
    assert (run.id, run.status, run.proposed) == (request.run_id, RunStatus.OK, 1)
    assert run.source == "text"
    assert run.agent == "codex"


def test_without_an_extractor_nothing_is_queued(service: MemoryService) -> None:
    worker = service.extraction = ExtractionWorker(service)
    before = set(threading.enumerate())
    with pytest.raises(ExtractorOff):
        worker.submit(text_request(service))
    assert set(threading.enumerate()) == before


def test_a_full_queue_refuses_more_and_a_held_model_holds_no_caller(
    make_service: ServiceFactory, fake_model: FakeModel
) -> None:
    fake_model.behaviour.hold = True
    service = make_service(settings=fake_model.settings())
    worker = service.extraction = ExtractionWorker(service, max_waiting=1)
    worker.submit(text_request(service))  # runs, and waits on the model
    assert fake_model.behaviour.arrived.wait(10)
    worker.submit(text_request(service))  # waits its turn
    with pytest.raises(ExtractionBusy):
        worker.submit(text_request(service))
    fake_model.behaviour.release.set()
    assert worker.wait_idle(10)
    assert [r.status for r in service.inbox.runs()] == [RunStatus.OK, RunStatus.OK]


def test_closing_the_service_stops_the_worker(
    make_service: ServiceFactory, fake_model: FakeModel
) -> None:
    service = make_service(settings=fake_model.settings())
    worker = service.extraction = ExtractionWorker(service)
    worker.submit(text_request(service))
    assert worker.wait_idle(10)
    late = text_request(service)
    service.close()
    assert not any(t.name == "ltm-extractor" for t in threading.enumerate())
    with pytest.raises(LtmError, match="shutting down"):
        worker.submit(late)

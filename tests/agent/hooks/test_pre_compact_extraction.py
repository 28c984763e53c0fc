"""End to end: Claude Code's PreCompact hook hands the transcript to the extractor.

The real ``ltm-desktop hook claude-code pre-compact`` with a recorded-shape payload and
transcript, a fake OpenAI-compatible model on 127.0.0.1: the hook answers at once, and the
model's entries end up as proposals in the store (through the app's server when one
serves the data dir, else a detached ``ltm-desktop extract``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from ltm_desktop.agent.extractor.worker import ExtractionWorker
from ltm_desktop.api.runtime import socket_for
from ltm_desktop.api.server import ServerOptions
from ltm_desktop.api.server_thread import ServerThread
from ltm_desktop.core.inbox.proposals import RunStatus
from ltm_desktop.core.service import MemoryService
from tests.agent.fake_model import FakeModel
from tests.agent.hook_process import payload, run_hook
from tests.api.conftest import wait_until
from tests.conftest import ServiceFactory

REPLY = json.dumps(
    [
        {
            "title": "Factorial",
            "content": "mathutil.factorial(n) raises ValueError below 0.",
            "category": "knowledge",
            "importance": 6,
        },
        {"title": "", "content": ""},  # invalid: skipped and counted
    ]
)


@pytest.fixture(params=["detached", "server"])
def served(
    request: pytest.FixtureRequest,
    fake_model: FakeModel,
    make_service: ServiceFactory,
    tmp_path: Path,
) -> Iterator[MemoryService]:
    fake_model.behaviour.reply = REPLY
    service = make_service(tmp_path / "data", fake_model.settings(extractor_review=True))
    if request.param == "detached":
        yield service
        return
    service.extraction = ExtractionWorker(service)
    thread = ServerThread(
        service, service.paths.data_dir, ServerOptions(socket_for(service.paths.data_dir))
    )
    assert thread.start(), thread.error
    yield service
    thread.stop()


def test_pre_compact_ends_with_the_models_entries_as_proposals(
    served: MemoryService, fake_model: FakeModel, tmp_path: Path
) -> None:
    project_dir = tmp_path / "project"
    project_dir.mkdir()
    config = tmp_path / "config.toml"
    config.write_text(
        f'[extractor]\nbase_url = "{fake_model.base_url}"\nmodel = "fake-model"\nreview = true\n',
        encoding="utf-8",
    )

    done = run_hook(
        "claude-code",
        "pre-compact",
        payload("claude-code", "pre-compact", project_dir),
        served.paths.data_dir,
        config=config,
    )

    assert done.returncode == 0, done.stderr
    assert done.stdout == ""  # Claude Code wants nothing back from PreCompact
    wait_until(lambda: bool(served.inbox.runs()), timeout=60)
    [run] = served.inbox.runs()
    assert (run.status, run.agent, run.proposed, run.invalid) == (RunStatus.OK, "claude-code", 1, 1)
    [entry] = served.inbox.entries()
    assert entry.proposal is not None
    assert entry.proposal.content == "mathutil.factorial(n) raises ValueError below 0."
    assert entry.proposal.project_id == served.resolve_scope(cwd=str(project_dir))
    [observation] = served.observations.page(entry.proposal.project_id)
    assert observation.kind.value == "pre_compact"  # the hook's own record, as before
    body = fake_model.behaviour.received[-1].decode()
    assert "factorial" in body  # the transcript reached the model

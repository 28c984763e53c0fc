"""``ltm-desktop extract`` as a real console script, against a fake model on 127.0.0.1."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from ltm_desktop.core.inbox.proposals import RunStatus
from tests.agent.fake_model import FakeModel
from tests.conftest import ServiceFactory
from tests.console import CONSOLE_SCRIPT, assert_one_error_line

FIXTURE = Path(__file__).parent / "fixtures" / "claude-code-transcript.jsonl"
CWD = "/home/dev/src/billing-api"
ENTRIES = [
    {"title": "Tests", "content": "Run the tests with make test, never plain pytest."},
    {"title": "Commits", "content": "The user prefers small commits", "category": "preference"},
]


def write_config(path: Path, fake: FakeModel | None, **extra: object) -> Path:
    lines = ["[extractor]"]
    if fake is not None:
        lines += [f'base_url = "{fake.base_url}"', 'model = "fake-model"']
    lines += [f"{key} = {json.dumps(value)}" for key, value in extra.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run_extract(tmp_path: Path, config: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    command = [CONSOLE_SCRIPT, "extract", "--transcript", str(FIXTURE), "--cwd", CWD]
    command += ["--data-dir", str(tmp_path / "data"), "--config", str(config), *extra]
    return subprocess.run(command, capture_output=True, text=True, timeout=60)


def test_extract_stores_proposals_and_says_so(
    tmp_path: Path, fake_model: FakeModel, make_service: ServiceFactory
) -> None:
    fake_model.behaviour.reply = f"```json\n{json.dumps(ENTRIES)}\n```"
    config = write_config(tmp_path / "config.toml", fake_model, review=True)
    result = run_extract(tmp_path, config, "--session", "6f1d2c3b")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert "Extraction from claude-code session 6f1d2c3b: 2 proposed" in result.stdout
    sent = fake_model.received_text()
    assert "make test" in sent
    assert "small commits" in sent
    service = make_service(tmp_path / "data")
    [run] = service.inbox.runs()
    assert (run.status, run.proposed, run.agent) == (RunStatus.OK, 2, "claude-code")
    assert {e.proposal.title for e in service.inbox.entries() if e.proposal} == {"Tests", "Commits"}
    assert service.resolve_scope(cwd=CWD) == run.project_id


def test_a_failed_extraction_is_one_error_line_and_a_recorded_run(
    tmp_path: Path, fake_model: FakeModel, make_service: ServiceFactory
) -> None:
    fake_model.behaviour.status = 500
    fake_model.behaviour.raw_body = b'{"error": "model not loaded"}'
    result = run_extract(tmp_path, write_config(tmp_path / "config.toml", fake_model))
    line = assert_one_error_line(result, "extraction failed", "answered HTTP 500")
    assert "recorded as run_" in line
    [run] = make_service(tmp_path / "data").inbox.runs()
    assert run.status is RunStatus.FAILED


@pytest.mark.parametrize(
    ("transcript", "expected"),
    [(None, "no extractor is configured"), ("/nonexistent/t.jsonl", "is not a readable file")],
)
def test_nothing_to_do_is_one_error_line(
    tmp_path: Path, fake_model: FakeModel, transcript: str | None, expected: str
) -> None:
    config = write_config(tmp_path / "config.toml", None)  # [extractor] without an endpoint
    command = [CONSOLE_SCRIPT, "extract", "--transcript", transcript or str(FIXTURE)]
    command += ["--data-dir", str(tmp_path / "data"), "--config", str(config)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert_one_error_line(result, expected)
    assert fake_model.behaviour.received == []

"""``ltm-desktop consolidate`` as a real console script, against a fake model on 127.0.0.1."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from ltm_desktop.agent.consolidation.writer import MergeReplyError, parse_merge_reply
from ltm_desktop.core.inbox.proposals import ProposalState
from ltm_desktop.core.records import MemoryDraft
from ltm_desktop.core.service import MemoryService
from ltm_desktop.embedding.static import StaticEmbedder
from tests.agent.fake_model import FakeModel, refused_url
from tests.conftest import ServiceFactory
from tests.console import CONSOLE_SCRIPT, assert_one_error_line

CWD = "/home/dev/src/billing-api"
PAIR = (
    "Use pytest for all tests in this repo; run them with `pytest -q`.",
    "Tests are written with pytest and run via pytest -q.",
)
SECRET = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
MERGED = {
    "title": "Tests run with pytest",
    "content": "All tests use pytest; run them with pytest -q.",
    "category": "knowledge",
    "tags": ["testing"],
}


def write_config(path: Path, base_url: str | None) -> Path:
    lines = ["[extractor]"]
    if base_url is not None:
        lines += [f'base_url = "{base_url}"', 'model = "fake-model"', "timeout_s = 10"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def seed(make_service: ServiceFactory, data: Path) -> MemoryService:
    service = make_service(data, embedder=StaticEmbedder())
    project = service.resolve_scope(cwd=CWD, register=True)
    service.add(project, MemoryDraft(content=PAIR[0]), "gui")
    service.add(project, MemoryDraft(content=PAIR[1]), "gui")
    service.add(project, MemoryDraft(content="The user prefers tabs in Go code"), "gui")
    return service


def run(tmp_path: Path, config: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    command = [CONSOLE_SCRIPT, "consolidate", "--cwd", CWD, "--data-dir", str(tmp_path / "data")]
    command += ["--config", str(config), *extra]
    return subprocess.run(command, capture_output=True, text=True, timeout=60)


def test_consolidate_proposes_the_merge_in_the_inbox(
    tmp_path: Path, fake_model: FakeModel, make_service: ServiceFactory
) -> None:
    service = seed(make_service, tmp_path / "data")
    fake_model.behaviour.reply = f"Here it is:\n```json\n{json.dumps(MERGED)}\n```"
    result = run(tmp_path, write_config(tmp_path / "c.toml", fake_model.base_url))
    assert result.returncode == 0, result.stderr
    assert "1 group found, 1 merge proposed" in result.stdout
    assert "“Tests run with pytest” merges 2" in result.stdout
    [request] = fake_model.requests()
    sent = request["messages"][1]["content"]
    assert PAIR[0] in sent
    assert PAIR[1] in sent
    assert "tabs in Go" not in sent  # only the group goes to the model
    [entry] = service.inbox.entries()
    assert entry.proposal is not None
    assert entry.proposal.state is ProposalState.PROPOSED
    assert {m.content for m in entry.members} == set(PAIR)


def test_a_memory_holding_a_credential_is_redacted_before_it_is_sent(
    tmp_path: Path, fake_model: FakeModel, make_service: ServiceFactory
) -> None:
    from ltm_desktop.core.settings.config import Settings

    service = make_service(
        tmp_path / "data", Settings(privacy_secrets="allow"), embedder=StaticEmbedder()
    )
    project = service.resolve_scope(cwd=CWD, register=True)
    service.add(project, MemoryDraft(content=f"{PAIR[0]} Token {SECRET}"), "gui")
    service.add(project, MemoryDraft(content=PAIR[1]), "gui")
    fake_model.behaviour.reply = json.dumps(MERGED)
    result = run(tmp_path, write_config(tmp_path / "c.toml", fake_model.base_url))
    assert result.returncode == 0, result.stderr
    assert SECRET not in fake_model.received_text()
    assert "[redacted" in fake_model.received_text()


def test_dry_run_lists_the_groups_and_asks_no_model(
    tmp_path: Path, make_service: ServiceFactory
) -> None:
    service = seed(make_service, tmp_path / "data")
    result = run(tmp_path, write_config(tmp_path / "c.toml", None), "--dry-run")
    assert result.returncode == 0, result.stderr
    assert "Group 1: 2 memories" in result.stdout
    assert "dry run: nothing asked" in result.stdout
    assert service.inbox.entries() == []


def test_without_an_endpoint_it_says_it_needs_one(
    tmp_path: Path, make_service: ServiceFactory
) -> None:
    service = seed(make_service, tmp_path / "data")
    result = run(tmp_path, write_config(tmp_path / "c.toml", None))
    assert_one_error_line(result, "consolidate needs a model", "[extractor] base_url")
    assert result.returncode == 1
    assert service.inbox.entries() == []


@pytest.mark.parametrize(
    ("reply", "status", "expected"),
    [
        ("I would rather not.", 200, "holds no JSON object"),
        (json.dumps({"title": "x", "content": ""}), 200, "not usable merges"),
        ("[]", 500, "answered HTTP 500"),
    ],
)
def test_a_bad_answer_is_one_error_line_and_nothing_written(
    tmp_path: Path,
    fake_model: FakeModel,
    make_service: ServiceFactory,
    reply: str,
    status: int,
    expected: str,
) -> None:
    service = seed(make_service, tmp_path / "data")
    fake_model.behaviour.reply, fake_model.behaviour.status = reply, status
    result = run(tmp_path, write_config(tmp_path / "c.toml", fake_model.base_url))
    assert_one_error_line(result, "consolidation failed", expected, "nothing was written")
    assert service.inbox.entries() == []


def test_an_endpoint_that_is_down_is_one_error_line(
    tmp_path: Path, make_service: ServiceFactory
) -> None:
    service = seed(make_service, tmp_path / "data")
    result = run(tmp_path, write_config(tmp_path / "c.toml", refused_url()))
    assert_one_error_line(result, "consolidation failed", "cannot connect")
    assert service.inbox.entries() == []


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ('{"same": false}', {"same": False}),
        ('<think>{no}</think>Sure: {"content": "x"} done', {"content": "x"}),
        ('```json\n[{"content": "y"}]\n```', [{"content": "y"}]),
    ],
)
def test_the_reply_parser_finds_the_object(reply: str, expected: object) -> None:
    assert parse_merge_reply(reply) == expected


def test_the_reply_parser_refuses_prose_and_huge_replies() -> None:
    with pytest.raises(MergeReplyError, match="no JSON object"):
        parse_merge_reply("{{{{ not json")
    with pytest.raises(MergeReplyError, match="longer than"):
        parse_merge_reply("x" * 300_000)


def test_a_directory_that_is_no_project_is_refused(
    tmp_path: Path, make_service: ServiceFactory
) -> None:
    """A typo in --cwd looked like success ("0 groups found", exit 0)."""
    seed(make_service, tmp_path / "data").close()
    command = [CONSOLE_SCRIPT, "consolidate", "--cwd", str(tmp_path / "no-such-dir"), "--dry-run"]
    result = subprocess.run(
        [*command, "--data-dir", str(tmp_path / "data")], capture_output=True, text=True, timeout=60
    )
    assert_one_error_line(result, "no project at", "no-such-dir")
    assert result.returncode == 1


def test_without_an_endpoint_nothing_is_opened(tmp_path: Path) -> None:
    """Refused before the database is opened: no data dir is made for a run that cannot go."""
    result = run(tmp_path, write_config(tmp_path / "c.toml", None))
    assert_one_error_line(result, "consolidate needs a model")
    assert not (tmp_path / "data").exists()

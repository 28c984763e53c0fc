"""The extractor against a fake OpenAI-compatible server: every kind of answer, fail-open.

Each case: the right memories or proposals and audit events, no exception escaping, and
the run recorded (failed ones with their reason).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from ltm_desktop.agent.extractor.runner import run_extraction
from ltm_desktop.core.inbox.extraction import new_run_id
from ltm_desktop.core.inbox.proposals import ExtractionRequest, ProposalState, RunStatus
from ltm_desktop.core.records import AuditAction, ReviewState
from ltm_desktop.core.seams import ExtractorOff
from ltm_desktop.core.service import MemoryService
from tests.agent.fake_model import FakeModel, refused_url
from tests.agent.hook_process import transcript as hook_transcript
from tests.conftest import ServiceFactory

CWD = "/home/dev/src/billing-api"
GOOD = [
    {
        "title": "Deploy",
        "content": "Deploy with make deploy from main",
        "category": "skill",
        "importance": 7,
    },
    {"title": "Tabs", "content": "The user wants tabs in Go code", "category": "preference"},
]
ARRAY = json.dumps(GOOD)


def transcript(tmp_path: Path, *texts: str) -> Path:
    """A Claude Code transcript (JSONL) of alternating user and assistant turns."""
    lines = []
    for i, text in enumerate(texts):
        role = "user" if i % 2 == 0 else "assistant"
        content: Any = text if role == "user" else [{"type": "text", "text": text}]
        lines.append(json.dumps({"type": role, "message": {"role": role, "content": content}}))
    path = tmp_path / "session-1.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def request(service: MemoryService, path: Path) -> ExtractionRequest:
    return ExtractionRequest(
        project_id=service.resolve_scope(cwd=CWD, register=True),
        agent="claude-code",
        session_id="session-1",
        run_id=new_run_id(service.now()),
        transcript_path=str(path),
    )


def extract(
    make_service: ServiceFactory, fake: FakeModel, tmp_path: Path, **settings: Any
) -> tuple[MemoryService, Any]:
    service = make_service(settings=fake.settings(**settings))
    path = transcript(tmp_path, "How do we deploy?", "With make deploy from main.")
    run = run_extraction(service, request(service, path))
    assert service.inbox.runs() == [run]  # recorded, whatever happened
    return service, run


@pytest.mark.parametrize(
    "reply",
    [
        ARRAY,
        f"```json\n{ARRAY}\n```",
        f"Here are the memories worth keeping:\n\n{ARRAY}\n\nLet me know if you need more.",
        f"<think>the user [asked] about deploys</think>\n```\n{ARRAY}\n```",
    ],
    ids=["clean", "fenced", "prose-around", "thinking-first"],
)
def test_an_array_in_any_wrapping_becomes_proposals(
    make_service: ServiceFactory, fake_model: FakeModel, tmp_path: Path, reply: str
) -> None:
    fake_model.behaviour.reply = reply
    service, run = extract(make_service, fake_model, tmp_path, extractor_review=True)
    assert (run.status, run.proposed, run.invalid) == (RunStatus.OK, 2, 0)
    titles = {e.proposal.title for e in service.inbox.entries() if e.proposal}
    assert titles == {"Deploy", "Tabs"}
    proposal = service.inbox.get(run.item_ids[0])
    assert proposal.state is ProposalState.PROPOSED
    assert proposal.provenance.model == "fake-model"
    assert proposal.provenance.source.endswith("session-1.jsonl")
    assert [e.action for e in service.history.memory(proposal.id)] == [AuditAction.PROPOSED]
    assert service.history.project(run.project_id)[0].action is AuditAction.EXTRACTED
    assert service.count_memories(run.project_id) == 0


def test_without_review_the_entries_are_unreviewed_memories(
    make_service: ServiceFactory, fake_model: FakeModel, tmp_path: Path
) -> None:
    fake_model.behaviour.reply = ARRAY
    service, run = extract(make_service, fake_model, tmp_path)
    assert (run.added, run.proposed) == (2, 0)
    memories = service.list_memories(run.project_id)
    assert {m.review_state for m in memories} == {ReviewState.UNREVIEWED}
    assert {m.source for m in memories} == {"extractor"}
    assert {e.action for m in memories for e in service.history.memory(m.id)} == {
        AuditAction.CREATED
    }


def test_invalid_entries_are_skipped_and_counted(
    make_service: ServiceFactory, fake_model: FakeModel, tmp_path: Path
) -> None:
    entries = [GOOD[0], "a string", {"title": "no content"}, {"content": "x", "importance": 99}]
    fake_model.behaviour.reply = json.dumps(entries)
    service, run = extract(make_service, fake_model, tmp_path, extractor_review=True)
    assert (run.status, run.proposed, run.invalid) == (RunStatus.OK, 1, 3)
    assert [e.proposal.title for e in service.inbox.entries() if e.proposal] == ["Deploy"]


@pytest.mark.parametrize(
    ("behaviour", "reason"),
    [
        ({"reply": "I could not find anything {not json"}, "holds no JSON array"),
        ({"reply": '{"note": "no array here"}'}, "holds no JSON array"),
        ({"status": 500, "raw_body": b'{"error": "model crashed"}'}, "answered HTTP 500"),
        ({"raw_body": b"<html>not an API</html>"}, "did not answer like a chat-completions"),
        ({"hold": True}, "did not answer within 0.3 s"),
    ],
    ids=["invalid-json", "no-array", "http-500", "not-chat-completions", "too-slow"],
)
def test_a_failure_is_recorded_with_its_reason_and_nothing_raised(
    make_service: ServiceFactory,
    fake_model: FakeModel,
    tmp_path: Path,
    behaviour: dict[str, Any],
    reason: str,
) -> None:
    for name, value in behaviour.items():
        setattr(fake_model.behaviour, name, value)
    service, run = extract(make_service, fake_model, tmp_path, extractor_timeout_s=0.3)
    assert run.status is RunStatus.FAILED
    assert reason in (run.reason or "")
    assert service.inbox.entries() == []
    assert service.count_memories(run.project_id) == 0
    event = service.history.project(run.project_id)[0]
    assert (event.action, event.memory_id) == (AuditAction.EXTRACTION_FAILED, run.id)
    assert event.after is not None
    assert reason in event.after["title"]


def test_a_refused_connection_is_a_failed_run(make_service: ServiceFactory, tmp_path: Path) -> None:
    from ltm_desktop.core.settings.config import Settings

    url = refused_url()
    settings = Settings(extractor_base_url=url, extractor_model="m", extractor_timeout_s=5.0)
    service = make_service(settings=settings)
    run = run_extraction(service, request(service, transcript(tmp_path, "hello there")))
    assert run.status is RunStatus.FAILED
    assert f"cannot connect to {url}/chat/completions" in (run.reason or "")
    assert service.inbox.runs() == [run]


def test_a_missing_transcript_or_an_empty_one_is_a_failed_run(
    make_service: ServiceFactory, fake_model: FakeModel, tmp_path: Path
) -> None:
    service = make_service(settings=fake_model.settings())
    missing = run_extraction(service, request(service, tmp_path / "gone.jsonl"))
    assert "cannot read the transcript" in (missing.reason or "")
    empty = tmp_path / "empty.jsonl"
    empty.write_text('{"type": "summary", "summary": "x"}\nnot json at all\n')
    nothing = run_extraction(service, request(service, empty))
    assert "no conversation text" in (nothing.reason or "")
    assert fake_model.behaviour.received == []  # the model was never asked


def test_no_extractor_configured_reads_and_records_nothing(
    service: MemoryService, tmp_path: Path
) -> None:
    with pytest.raises(ExtractorOff):
        run_extraction(service, request(service, transcript(tmp_path, "hi")))
    assert service.inbox.runs() == []


def test_credentials_never_reach_the_model(
    make_service: ServiceFactory, fake_model: FakeModel, tmp_path: Path
) -> None:
    aws = "AKIAIOSFODNN7EXAMPLE"
    github = "ghp_" + "Zy9Xw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe9Dc8"
    key_body = "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun"
    private_key = (
        f"-----BEGIN RSA PRIVATE KEY-----\n{key_body}\n"
        "VeLgIbBQ8PzJEkTxZR4J6ufjKdyB2wX3wtA6sZkFEJH9Dl0N\n-----END RSA PRIVATE KEY-----"
    )
    fake_model.behaviour.reply = "[]"
    service = make_service(settings=fake_model.settings())
    path = transcript(
        tmp_path,
        f"Our AWS key is {aws}, please configure the bucket.",
        f"Done. I also used the token {github} to push.",
        f"And here is the deploy key:\n{private_key}\nuse it for the servers.",
        "Stored it.",
    )
    run = run_extraction(service, request(service, path))
    assert run.status is RunStatus.OK
    sent = fake_model.received_text()
    assert "please configure the bucket" in sent  # the conversation itself did go
    for secret in (aws, github, key_body, "BEGIN RSA PRIVATE KEY"):
        assert secret not in sent


def test_an_entry_holding_a_credential_is_refused(
    make_service: ServiceFactory, fake_model: FakeModel, tmp_path: Path
) -> None:
    leaked = {"content": "Push with the token ghp_" + "Zy9Xw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe9Dc8"}
    fake_model.behaviour.reply = json.dumps([leaked, GOOD[1]])
    service, run = extract(make_service, fake_model, tmp_path, extractor_review=True)
    assert (run.proposed, run.refused) == (1, 1)


def test_the_input_is_bounded_from_the_end(
    make_service: ServiceFactory, fake_model: FakeModel, tmp_path: Path
) -> None:
    service = make_service(settings=fake_model.settings(extractor_max_input_chars=1_000))
    old, new = "OLDEST " * 400, "the newest words"
    run_extraction(service, request(service, transcript(tmp_path, old, new)))
    conversation = fake_model.requests()[0]["messages"][1]["content"]
    assert "the newest words" in conversation
    assert conversation.count("OLDEST") < 150


def test_the_key_is_read_from_the_named_environment_variable(
    make_service: ServiceFactory,
    fake_model: FakeModel,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TEST_LLM_KEY", "sk-test-123")
    service = make_service(settings=fake_model.settings(extractor_api_key_env="TEST_LLM_KEY"))
    run_extraction(service, request(service, transcript(tmp_path, "hi")))
    assert fake_model.behaviour.headers[0]["Authorization"] == "Bearer sk-test-123"
    monkeypatch.delenv("TEST_LLM_KEY")
    run = run_extraction(service, request(service, transcript(tmp_path, "hi")))
    assert "TEST_LLM_KEY" in (run.reason or "")
    assert "is not set" in (run.reason or "")


@pytest.mark.parametrize(
    ("agent", "said", "left_out"),
    [
        (
            "claude-code",
            ["Write a function to calculate the factorial", "I added factorial() to mathutil.py"],
            ["/clear", "a subagent's aside", "File created successfully", "Recursion is"],
        ),
        (
            "codex",
            ["Why does the checkout test fail on CI?", "The test raced the payment mock"],
            ["environment_context"],
        ),
    ],
)
@pytest.mark.parametrize("named", [True, False], ids=["agent-named", "agent-recognised"])
def test_the_model_reads_the_conversation_the_hooks_read(
    make_service: ServiceFactory,
    fake_model: FakeModel,
    agent: str,
    said: list[str],
    left_out: list[str],
    named: bool,
) -> None:
    """Not Claude Code's meta records (command caveats) or a subagent's aside, not Codex's
    injected environment: what the user and the agent said, whether or not the request
    names the agent (``extract`` without ``--agent``)."""
    fake_model.behaviour.reply = "[]"
    service = make_service(settings=fake_model.settings())
    asked = replace(request(service, hook_transcript(agent)), agent=agent if named else "agent")
    run = run_extraction(service, asked)
    assert run.status is RunStatus.OK
    sent = fake_model.received_text()
    for text in said:
        assert text in sent
    for text in left_out:
        assert text not in sent

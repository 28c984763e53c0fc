"""The extractor's parts alone: transcript readers, the reply parser, the bounded prompt."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ltm_desktop.agent.extractor.prompt import bounded_conversation, build_messages
from ltm_desktop.agent.extractor.reply import ReplyError, parse_reply
from ltm_desktop.agent.extractor.transcript import (
    Turn,
    parse_transcript,
    read_transcript,
    sniff_agent,
)

CLAUDE_CODE = [
    {"type": "summary", "summary": "Earlier work", "leafUuid": "x"},
    {"type": "user", "message": {"role": "user", "content": "How do I run the tests?"}},
    {
        "type": "assistant",
        "message": {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "hmm"},
                {"type": "text", "text": "Run make test."},
                {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}},
            ],
        },
    },
    {
        "type": "user",
        "message": {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "a b c"}],
        },
    },
]
CODEX = [
    {"timestamp": "t", "type": "session_meta", "payload": {"id": "s"}},
    {
        "timestamp": "t",
        "type": "response_item",
        "payload": {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "Use pnpm, not npm."}],
        },
    },
    {"timestamp": "t", "type": "event_msg", "payload": {"type": "user_message", "message": "dup"}},
    {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "Noted: pnpm."}],
    },
]
GEMINI = {
    "sessionId": "g1",
    "messages": [
        {"id": "1", "type": "user", "content": "Our API is in services/api."},
        {"id": "2", "type": "gemini", "content": "Understood.", "toolCalls": []},
        {"role": "model", "parts": [{"text": "Also noted."}]},
    ],
}


def jsonl(records: list[object]) -> str:
    return "\n".join(json.dumps(r) for r in records) + "\n"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            jsonl(CLAUDE_CODE),
            [("user", "How do I run the tests?"), ("assistant", "Run make test.")],
        ),
        (jsonl(CODEX), [("user", "Use pnpm, not npm."), ("assistant", "Noted: pnpm.")]),
        (
            json.dumps(GEMINI),
            [
                ("user", "Our API is in services/api."),
                ("assistant", "Understood."),
                ("assistant", "Also noted."),
            ],
        ),
    ],
    ids=["claude-code", "codex", "gemini"],
)
def test_each_agents_transcript_gives_its_conversation(
    text: str, expected: list[tuple[str, str]]
) -> None:
    assert [(t.role, t.text) for t in parse_transcript(text).turns] == expected


def test_broken_and_partial_lines_are_skipped_and_counted(tmp_path: Path) -> None:
    good = json.dumps({"type": "user", "message": {"role": "user", "content": "still here"}})
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"type": "user", "mess\n' + good.encode() + b"\n\xff\xfe garbage\n{")
    transcript = read_transcript(path)
    assert [t.text for t in transcript.turns] == ["still here"]
    assert transcript.broken_lines == 3


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ('[{"content": "a"}]', [{"content": "a"}]),
        ('```json\n[{"content": "a"}]\n```', [{"content": "a"}]),
        ('Sure! [see note 1]\n[{"content": "a"}] Hope it helps [1].', [{"content": "a"}]),
        ('{"memories": [{"content": "a"}]}', [{"content": "a"}]),
        ("[]", []),
        ("Nothing here. []", []),
        ('<think>maybe [x]?</think>[{"content": "a"}]', [{"content": "a"}]),
        ("[1, 2]", [1, 2]),
    ],
)
def test_the_array_is_found(reply: str, expected: list[object]) -> None:
    assert parse_reply(reply) == expected


@pytest.mark.parametrize("reply", ["", "no json", '{"a": 1}', "[unclosed", "```json\n{}\n```"])
def test_a_reply_without_an_array_is_an_error_naming_it(reply: str) -> None:
    with pytest.raises(ReplyError, match="holds no JSON array"):
        parse_reply(reply)


def test_the_conversation_is_labelled_bounded_and_redacted() -> None:
    turns = [Turn("user", "x" * 5000), Turn("assistant", "key AKIAIOSFODNN7EXAMPLE here")]
    text = bounded_conversation(turns, 1000)
    assert len(text) <= 1000
    assert text.endswith("Assistant: key [redacted AWS Access Key] here")
    messages = build_messages(text, 1000)
    assert [m["role"] for m in messages] == ["system", "user"]
    assert "JSON array" in messages[0]["content"]
    assert text in messages[1]["content"]


@pytest.mark.parametrize(
    ("text", "agent"),
    [
        (
            jsonl(CLAUDE_CODE[1:]).replace(
                '"type": "user"', '"userType": "external", "sessionId": "s", "type": "user"'
            ),
            "claude-code",
        ),
        (jsonl(CODEX), "codex"),
        (json.dumps(GEMINI), "gemini-cli"),
        ('{"role": "user", "content": "hi"}\n', None),
    ],
    ids=["claude-code", "codex", "gemini", "unknown"],
)
def test_the_agent_is_recognised_by_its_records(
    tmp_path: Path, text: str, agent: str | None
) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(text, encoding="utf-8")
    assert sniff_agent(path) == agent

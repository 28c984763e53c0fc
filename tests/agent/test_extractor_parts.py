"""The extractor's parts alone: the reply parser, the bounded prompt (its transcripts are
read as the hooks read them: tests/agent/test_transcripts.py)."""

from __future__ import annotations

import pytest

from ltm_desktop.agent.extractor.prompt import bounded_conversation, build_messages
from ltm_desktop.agent.extractor.reply import ReplyError, parse_reply
from ltm_desktop.agent.transcripts import Message


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
    turns = [Message("user", "x" * 5000), Message("assistant", "key AKIAIOSFODNN7EXAMPLE here")]
    text = bounded_conversation(turns, 1000)
    assert len(text) <= 1000
    assert text.endswith("Assistant: key [redacted AWS Access Key] here")
    messages = build_messages(text, 1000)
    assert [m["role"] for m in messages] == ["system", "user"]
    assert "JSON array" in messages[0]["content"]
    assert text in messages[1]["content"]

"""The extractor's parts alone: the reply parser, the bounded prompt (its transcripts are
read as the hooks read them: tests/agent/test_transcripts.py)."""

from __future__ import annotations

import random
import re

import pytest

from bench.pathological import REPLIES
from ltm_desktop.agent.extractor.prompt import bounded_conversation, build_messages
from ltm_desktop.agent.extractor.reply import FENCE, ReplyError, parse_reply, without_thinking
from ltm_desktop.agent.transcripts import Message
from tests.hang import finishes


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


# The reply parser's regexes before they were made linear: what they found is still found.
LAZY_THINKING = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
BACKTRACKING_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n?(.*?)```", re.DOTALL)
PIECES = (
    "<think>",
    "</think>",
    "<THINK>",
    "</Think>",
    "<think",
    "x",
    " ",
    "\n",
    "```",
    "json",
    "[1]",
    '{"a": 1}',
)


def random_replies(count: int = 3000) -> list[str]:
    chance = random.Random(7)
    return ["".join(chance.choices(PIECES, k=chance.randint(0, 12))) for _ in range(count)]


def test_thinking_is_cut_as_the_lazy_regex_cut_it() -> None:
    for reply in random_replies():
        assert without_thinking(reply) == LAZY_THINKING.sub("", reply), repr(reply)


def test_fences_are_found_as_the_backtracking_regex_found_them() -> None:
    for reply in random_replies():
        expected = [m.group(1) for m in BACKTRACKING_FENCE.finditer(reply)]
        assert [m.group(1) for m in FENCE.finditer(reply)] == expected, repr(reply)


@pytest.mark.parametrize("shape", REPLIES)
def test_a_pathological_reply_is_parsed_without_backtracking(shape: str) -> None:
    """A quadratic parse of 100,000 repeats takes minutes, the linear one a fraction of a
    second (bench/scale/growth_bench.py times ten times the reply against ten times the time)."""
    reply = REPLIES[shape](100_000)

    def parse() -> object:
        try:
            return parse_reply(reply)
        except ReplyError as refused:
            return refused

    finishes(parse)


def test_a_reply_of_50_000_think_tags_is_parsed() -> None:
    reply = "<think>" * 50_000 + '[{"content": "a"}]'
    assert finishes(lambda: parse_reply(reply)) == [{"content": "a"}]
    assert parse_reply("<think>x</think>" * 50_000 + '[{"content": "a"}]') == [{"content": "a"}]


@pytest.mark.parametrize("reply", ["[" * 50_000, "{" * 50_000, '{"a":' * 5_000, "[0," * 5_000])
def test_json_nested_too_deep_is_no_array_not_a_crash(reply: str) -> None:
    with pytest.raises(ReplyError, match="holds no JSON array"):
        parse_reply(reply)


def test_an_array_after_some_deep_junk_is_still_found() -> None:
    assert parse_reply("[" * 100 + ' and then [{"content": "a"}]') == [{"content": "a"}]


def test_the_conversation_is_labelled_bounded_and_redacted() -> None:
    turns = [Message("user", "x" * 5000), Message("assistant", "key AKIAIOSFODNN7EXAMPLE here")]
    text = bounded_conversation(turns, 1000)
    assert len(text) <= 1000
    assert text.endswith("Assistant: key [redacted AWS Access Key] here")
    messages = build_messages(text, 1000)
    assert [m["role"] for m in messages] == ["system", "user"]
    assert "JSON array" in messages[0]["content"]
    assert text in messages[1]["content"]

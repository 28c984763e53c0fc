"""The extractor's parts alone: the reply parser, the bounded prompt (its transcripts are
read as the hooks read them: tests/agent/test_transcripts.py)."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable

import pytest

from ltm_desktop.agent.extractor.prompt import bounded_conversation, build_messages
from ltm_desktop.agent.extractor.reply import FENCE, ReplyError, parse_reply, without_thinking
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


PATHOLOGICAL: dict[str, Callable[[int], str]] = {
    "unclosed <think> tags": lambda n: "<think>" * n,
    "<think> tags closed at the end": lambda n: "<think>" * n + '</think>[{"a": 1}]',
    "thinking spans": lambda n: "<think>[x]</think>" * n + "[]",
    "unclosed fences with long words": lambda n: "```" + "a" * n + " " * n,
    "many [": lambda n: "[" * n,
    "many {": lambda n: "{" * n,
    "nested lists never closed": lambda n: "[0," * n,
    "nested objects never closed": lambda n: '{"a":' * n,
    "[ in strings": lambda n: '["[",' * n,
}


def seconds_to_parse(reply: str) -> float:
    """The fastest of three parses (a shared machine's noise only ever adds time)."""
    times = []
    for _ in range(3):
        started = time.perf_counter()
        try:
            parse_reply(reply)
        except ReplyError:
            pass
        times.append(time.perf_counter() - started)
    return min(times)


@pytest.mark.parametrize("shape", PATHOLOGICAL)
def test_a_pathological_reply_takes_time_linear_in_its_length(shape: str) -> None:
    """Ten times the reply, at most about ten times the time: quadratic would be 100."""
    make = PATHOLOGICAL[shape]
    small, large = seconds_to_parse(make(1_000)), seconds_to_parse(make(10_000))
    assert large < 25 * small + 0.1, f"{small:.4f} s, then {large:.4f} s"


def test_a_reply_of_50_000_think_tags_is_parsed_at_once() -> None:
    assert seconds_to_parse("<think>" * 50_000 + '[{"content": "a"}]') < 2
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

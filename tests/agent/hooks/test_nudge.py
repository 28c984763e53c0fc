"""The turn nudge's policy object: due every N turns, applied to a copy, never stored."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from ltm_desktop.agent.nudge import Nudge
from ltm_desktop.core.settings.config import Settings


def test_due_every_interval_turns() -> None:
    nudge = Nudge(interval=3, text="save it")
    assert [t for t in range(1, 10) if nudge.due(t)] == [3, 6, 9]


@pytest.mark.parametrize(("interval", "text"), [(0, "save it"), (5, ""), (5, "   ")])
def test_zero_interval_or_empty_text_disables(interval: int, text: str) -> None:
    nudge = Nudge(interval, text)
    assert not nudge.enabled
    messages = [{"role": "user", "content": "hi"}]
    assert all(nudge.apply(messages, turn) == messages for turn in range(1, 30))


def test_from_settings_and_default_names_the_write_tool() -> None:
    nudge = Nudge.from_settings(Settings(nudge_interval=4, nudge_turn_text="x"))
    assert (nudge.interval, nudge.text) == (4, "x")
    assert "memory_write" in Nudge().text
    assert Nudge().interval == 10


def test_apply_returns_a_new_list_and_never_mutates() -> None:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "deploy the shop"},
    ]
    before = copy.deepcopy(messages)
    nudged = Nudge(2, "save it").apply(messages, 2)
    assert messages == before
    assert nudged is not messages
    assert nudged[0] is messages[0]
    assert nudged[-1] == {"role": "user", "content": "deploy the shop\n\nsave it"}
    not_due = Nudge(2, "save it").apply(messages, 3)
    assert not_due == messages
    assert not_due is not messages


def test_apply_to_blocks_and_after_an_assistant_message() -> None:
    blocks: list[dict[str, Any]] = [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]
    nudged = Nudge(1, "save it").apply(blocks, 1)
    assert nudged[-1]["content"] == [
        {"type": "text", "text": "hi"},
        {"type": "text", "text": "save it"},
    ]
    assert blocks[0]["content"] == [{"type": "text", "text": "hi"}]
    after = Nudge(1, "save it").apply([{"role": "assistant", "content": "done"}], 1)
    assert after[-1] == {"role": "user", "content": "save it"}
    assert Nudge(1, "save it").apply([], 1) == [{"role": "user", "content": "save it"}]


def test_not_accumulated_over_turns() -> None:
    nudge = Nudge(1, "save it")
    messages: list[dict[str, Any]] = [{"role": "user", "content": "a"}]
    for turn in range(1, 5):
        shown = nudge.apply(messages, turn)
        assert sum("save it" in str(m["content"]) for m in shown) == 1
        messages = [
            *messages,
            {"role": "assistant", "content": "ok"},
            {"role": "user", "content": "b"},
        ]
    assert all("save it" not in str(m["content"]) for m in messages)

"""Transcript readers: each agent's documented format, tolerant of anything unexpected."""

from __future__ import annotations

from pathlib import Path

import pytest

from ltm_desktop.agent.hooks import transcripts
from ltm_desktop.agent.hooks.transcripts import Message, last_exchange, read_messages, tail_text
from tests.agent.hook_process import FIXTURES, transcript, uncommented

EXPECTED = {
    "claude-code": (
        "Write a function to calculate the factorial of a number",
        "I'll add it to mathutil.py.\n\nI added factorial() to mathutil.py with a test for 0 and 5.",
    ),
    "codex": (
        "Why does the checkout test fail on CI?",
        "The test raced the payment mock; it now awaits the mock.",
    ),
    "gemini": (
        "Fix the authentication bug",
        "The token check compared expiry in seconds with milliseconds; fixed in auth.ts.",
    ),
    "generic": (
        "Summarise the release notes",
        "Three fixes and one new command: ltm-desktop integrate.",
    ),
}


@pytest.mark.parametrize("agent", sorted(EXPECTED))
def test_last_exchange_of_each_agents_transcript(agent: str) -> None:
    messages = read_messages(agent, transcript(agent))
    assert last_exchange(messages) == EXPECTED[agent]


def test_claude_skips_meta_sidechain_tool_results_and_broken_lines() -> None:
    texts = [m.text for m in read_messages("claude-code", transcript("claude-code"))]
    assert not any("/clear" in t or "subagent" in t or "File created" in t for t in texts)
    assert not any("Recursion" in t for t in texts)  # thinking is not the answer


def test_codex_prefers_its_event_messages_and_falls_back_to_response_items(
    tmp_path: Path,
) -> None:
    messages = read_messages("codex", transcript("codex"))
    assert [m.role for m in messages] == ["user", "assistant"]
    lines = [
        line for line in transcript("codex").read_text().splitlines() if '"event_msg"' not in line
    ]
    only_items = tmp_path / "rollout.jsonl"
    only_items.write_text("\n".join(lines))
    fallback = read_messages("codex", only_items)
    assert fallback[-1] == Message("assistant", EXPECTED["codex"][1])
    assert fallback[-2] == Message("user", EXPECTED["codex"][0])


def test_gemini_reads_the_older_single_json_file(tmp_path: Path) -> None:
    legacy = tmp_path / "session.json"
    legacy.write_text(uncommented((FIXTURES / "gemini-legacy.transcript.json").read_text()))
    assert last_exchange(read_messages("gemini", legacy)) == (
        "where do you store our conversations?",
        "In ~/.gemini/tmp, one file per session.",
    )


@pytest.mark.parametrize("agent", sorted(EXPECTED))
def test_garbage_files_give_no_messages(agent: str, tmp_path: Path) -> None:
    junk = tmp_path / "junk"
    junk.write_bytes(b'\xff\xfe not json\n[1, 2]\n"text"\n{"type": 5}\n\x00\x00')
    assert read_messages(agent, junk) == []


def test_a_missing_or_unreadable_transcript_is_an_oserror(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_messages("claude-code", tmp_path / "absent.jsonl")
    with pytest.raises(IsADirectoryError):
        read_messages("codex", tmp_path)


def test_only_the_end_of_a_long_file_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(transcripts, "TAIL_BYTES", 300)
    path = tmp_path / "long.jsonl"
    old = '{"role": "user", "content": "old question"}\n' * 50
    path.write_text(
        old + '{"role": "user", "content": "new"}\n{"role": "assistant", "content": "ok"}\n'
    )
    messages = read_messages("generic", path)
    assert messages[-2:] == [Message("user", "new"), Message("assistant", "ok")]
    assert len(messages) < 10


def test_tail_text_keeps_the_end_within_the_limit() -> None:
    messages = [Message("user", f"question {i} " + "x" * 50) for i in range(100)]
    messages.append(Message("assistant", "the final answer"))
    text = tail_text(messages, 500)
    assert len(text) <= 500
    assert text.endswith("assistant: the final answer")
    assert "question 99" in text
    assert "question 0 " not in text
    huge = tail_text([Message("user", "a" * 10_000 + "END")], 300)
    assert len(huge) <= 300
    assert huge.endswith("END")

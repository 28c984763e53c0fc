"""Transcript reading (the hooks' and the extractor's): each agent's documented format,
tolerant of anything unexpected."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from ltm_desktop.agent.transcripts import (
    Conversation,
    Message,
    last_exchange,
    read_conversation,
    sniff_agent,
    sniff_cwd,
    tail_text,
)
from tests.agent.hook_process import FIXTURES, transcript, uncommented
from tests.fifo import call_beside_fifo

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
    {
        "timestamp": "t",
        "type": "response_item",
        "payload": {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Noted: pnpm."}],
        },
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


def read_messages(agent: str | None, path: Path) -> list[Message]:
    return list(read_conversation(path, agent).messages)


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


def test_only_the_end_of_a_long_file_is_read(tmp_path: Path) -> None:
    path = tmp_path / "long.jsonl"
    old = '{"role": "user", "content": "old question"}\n' * 50
    path.write_text(
        old + '{"role": "user", "content": "new"}\n{"role": "assistant", "content": "ok"}\n'
    )
    messages = read_conversation(path, "generic", tail_bytes=300).messages
    assert messages[-2:] == (Message("user", "new"), Message("assistant", "ok"))
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


def jsonl(records: Sequence[object]) -> str:
    return "\n".join(json.dumps(r) for r in records) + "\n"


@pytest.mark.parametrize(
    ("agent", "text", "expected"),
    [
        (
            "claude-code",
            jsonl(CLAUDE_CODE),
            [("user", "How do I run the tests?"), ("assistant", "Run make test.")],
        ),
        ("codex", jsonl(CODEX), [("user", "Use pnpm, not npm."), ("assistant", "Noted: pnpm.")]),
        (
            "gemini-cli",
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
@pytest.mark.parametrize("told", [True, False], ids=["told", "recognised"])
def test_each_agents_transcript_gives_its_conversation_told_the_agent_or_not(
    tmp_path: Path, agent: str, text: str, expected: list[tuple[str, str]], told: bool
) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(text, encoding="utf-8")
    conversation = read_conversation(path, agent if told else None)
    assert [(m.role, m.text) for m in conversation.messages] == expected


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_without_the_agent_named_the_conversation_is_the_same(agent: str) -> None:
    """The extractor is often not told (``extract --agent`` is optional): the file's
    records say which agent wrote it, so meta records, subagents and Codex's injected
    instructions stay out either way."""
    path = transcript(agent)
    assert read_conversation(path, None) == read_conversation(path, agent)
    assert read_conversation(path, "agent") == read_conversation(path, agent)


def test_broken_and_partial_lines_are_skipped_and_counted(tmp_path: Path) -> None:
    good = json.dumps({"type": "user", "message": {"role": "user", "content": "still here"}})
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"type": "user", "mess\n' + good.encode() + b"\n\xff\xfe garbage\n{")
    conversation = read_conversation(path, "claude-code")
    assert conversation.messages == (Message("user", "still here"),)
    assert conversation.broken_lines == 3


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


@pytest.mark.parametrize(
    ("agent", "cwd"),
    [("claude-code", "/home/dev/src/mathutil"), ("codex", "/home/dev/src/shop"), ("generic", None)],
)
def test_the_working_directory_is_read_from_the_records(agent: str, cwd: str | None) -> None:
    assert sniff_cwd(transcript(agent)) == cwd


DEEP = "[" * 100_000 + "]" * 100_000  # JSON nested deeper than Python's recursion limit
ODD_RECORDS = [
    {"type": ["user"], "message": {"content": "type is a list"}},
    {"role": ["user"], "content": "role is a list"},
    {"role": {"is": "user"}, "content": "role is an object"},
    {"type": "user", "message": {"content": [{"type": ["text"], "text": "a list kind"}]}},
    {"role": "user", "content": [{"type": {"text": 1}, "text": "an object kind"}]},
]


@pytest.mark.parametrize("agent", [*sorted(EXPECTED), None])
def test_an_odd_line_or_record_is_skipped_the_rest_is_read(
    agent: str | None, tmp_path: Path
) -> None:
    """A line nested too deep to decode is broken; a record whose type or role (or a block's
    kind) is a list or an object is no message: neither makes the transcript unreadable."""
    good = transcript(agent or "claude-code").read_text(encoding="utf-8")
    odd = "\n".join([DEEP, *(json.dumps(r) for r in ODD_RECORDS)])
    path = tmp_path / "odd.jsonl"
    for text in (odd + "\n" + good, good + "\n" + odd + "\n"):
        path.write_text(text, encoding="utf-8")
        conversation = read_conversation(path, agent)
        assert conversation.broken_lines >= 1
        assert last_exchange(conversation.messages) == EXPECTED[agent or "claude-code"]
        assert not any("list" in m.text or "object" in m.text for m in conversation.messages)


@pytest.mark.parametrize("agent", ["gemini", "generic", None])
def test_a_whole_file_nested_too_deep_is_no_conversation(agent: str | None, tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    path.write_text(DEEP, encoding="utf-8")
    assert read_conversation(path, agent) == Conversation((), broken_lines=1)


def read_fifo_in_a_thread(fifo: Path, agent: str | None) -> BaseException | Conversation | None:
    """What reading ``fifo`` gave within 5 s (None: it was still waiting for a writer;
    then it is let go, by a writer that opens and closes the FIFO until it ends)."""
    waited, outcome = call_beside_fifo(lambda: read_conversation(fifo, agent), fifo, os.O_WRONLY)
    assert outcome is None or isinstance(outcome, BaseException | Conversation)
    return None if waited else outcome


@pytest.mark.parametrize("agent", ["claude-code", "gemini", None])
def test_a_fifo_is_refused_without_waiting_for_a_writer(agent: str | None, tmp_path: Path) -> None:
    fifo = tmp_path / "transcript.jsonl"
    os.mkfifo(fifo)
    outcome = read_fifo_in_a_thread(fifo, agent)
    assert isinstance(outcome, OSError), outcome
    assert "not a regular file but a FIFO" in str(outcome)


def limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (2 * 1024**3, 2 * 1024**3))


@pytest.mark.parametrize("agent", ["codex", "gemini"])
def test_an_endless_device_is_refused_without_reading_it(agent: str) -> None:
    """/dev/zero says it holds 0 bytes and never ends: a hook read it to 0.9 GB in 1.5 s
    (here, in a process of at most 2 GB, reading it would end in a MemoryError)."""
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from ltm_desktop.agent.transcripts import read_conversation\n"
        "try:\n"
        "    read_conversation(Path('/dev/zero'), sys.argv[1], tail_bytes=1024)\n"
        "except OSError as exc:\n"
        "    print(exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, agent],
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=limit_memory,
    )
    assert "not a regular file but a character device" in done.stdout, done.stderr[-500:]


def test_no_more_than_the_tail_is_read_whatever_size_the_file_states(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file that grows while it is read, or one in /proc, holds more than fstat says:
    no more than the limit is read from it all the same."""
    path = tmp_path / "long.jsonl"
    old = '{"role": "user", "content": "old question"}\n' * 50
    path.write_text(
        old + '{"role": "user", "content": "new"}\n{"role": "assistant", "content": "ok"}\n'
    )
    real_fstat = os.fstat

    def understated(fd: int) -> os.stat_result:
        info = real_fstat(fd)
        return os.stat_result((*info[:6], 0, *info[7:]))  # st_size 0

    monkeypatch.setattr(os, "fstat", understated)
    conversation = read_conversation(path, "generic", tail_bytes=300)
    assert 0 < len(conversation.messages) < 10
    assert conversation.broken_lines <= 1  # the line cut at the limit

"""Fail open, always: every failure exits 0 within 2 s, with the agent's valid empty result
on stdout (and nothing else), never exit 2, and a line in the log saying why."""

from __future__ import annotations

import json
import os
import resource
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ltm_desktop.agent.hooks.runner import ENV_DEADLINE, deadline_for
from ltm_desktop.api.runtime import socket_for
from ltm_desktop.core.service import MemoryService
from tests.agent.hook_process import (
    AGENTS,
    EXECUTABLE,
    HookResult,
    hook_log,
    hook_log_path,
    payload,
    payloads,
    run_hook,
    run_ltm_desktop,
    transcript,
)
from tests.agent.hook_schemas import check_output
from tests.hang import finishes

EMPTY = {"claude-code": "", "codex": "{}\n", "gemini": "{}\n", "generic": "{}\n"}
SOME_EVENTS = ("session-start", "user-prompt", "stop")


def assert_failed_open(done: HookResult, agent: str, event: str, logged: str) -> None:
    assert done.returncode == 0, done.stderr
    assert done.stdout == EMPTY[agent]
    check_output(agent, event, done.stdout)
    assert "Traceback" not in done.stderr
    assert logged in hook_log()


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("event", SOME_EVENTS)
def test_no_database(agent: str, event: str, tmp_path: Path) -> None:
    done = run_hook(agent, event, payload(agent, event, tmp_path), tmp_path / "absent")
    assert_failed_open(done, agent, event, "no database at")
    assert not (tmp_path / "absent" / "ltm.sqlite").exists()  # a hook creates none


@pytest.fixture
def locked(service: MemoryService) -> Iterator[Path]:
    """Another process holds a write transaction on the database (SQLite's RESERVED lock)."""
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sqlite3, sys\n"
            "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
            "c.execute('BEGIN IMMEDIATE')\n"
            "print('locked', flush=True)\n"
            "sys.stdin.read()\n",
            str(service.paths.db_path),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None
    assert holder.stdin is not None
    assert holder.stdout.readline() == "locked\n"
    yield service.paths.data_dir
    holder.stdin.close()
    holder.wait(timeout=10)
    holder.stdout.close()


@pytest.mark.slow
@pytest.mark.parametrize("agent", ["claude-code", "codex"])
@pytest.mark.parametrize("event", ["session-start", "stop"])
def test_locked_database(agent: str, event: str, locked: Path, tmp_path: Path) -> None:
    done = run_hook(agent, event, payload(agent, event, tmp_path), locked)
    assert_failed_open(done, agent, event, "is busy (locked by another process)")


def test_server_down_a_stale_socket_means_the_database(
    service: MemoryService, tmp_path: Path
) -> None:
    path = socket_for(service.paths.data_dir)
    stale = socket.socket(socket.AF_UNIX)
    stale.bind(str(path))  # the file stays; nobody listens: connections are refused
    stale.close()
    done = run_hook("gemini", "stop", payload("gemini", "stop", tmp_path), service.paths.data_dir)
    assert done.returncode == 0
    assert done.stdout == "{}\n"
    assert f"no server for {service.paths.data_dir}" in hook_log()
    assert len(service.observations.page(service.resolve_scope(cwd=str(tmp_path)))) == 1


@pytest.mark.slow
def test_server_down_one_that_never_answers(service: MemoryService, tmp_path: Path) -> None:
    hung = socket.socket(socket.AF_UNIX)
    hung.bind(str(socket_for(service.paths.data_dir)))
    hung.listen(8)  # connections are accepted by the kernel; nothing ever answers
    try:
        for agent, event in [("codex", "session-start"), ("claude-code", "session-end")]:
            done = run_hook(agent, event, payload(agent, event, tmp_path), service.paths.data_dir)
            assert done.returncode == 0, done.stderr
            check_output(agent, event, done.stdout)
    finally:
        hung.close()
    assert "no server for" in hook_log() or "no result within the deadline" in hook_log()


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize(
    "stdin", [b"", b"not json", b"[1, 2]", b'"text"', b"\xff\xfe\x00", b'{"cwd": "relative"}']
)
def test_garbage_stdin(agent: str, stdin: bytes, service: MemoryService) -> None:
    done = run_hook(agent, "session-start", stdin, service.paths.data_dir)
    assert_failed_open(done, agent, "session-start", "failed open (empty result)")


@pytest.mark.parametrize("agent", ["claude-code", "gemini", "generic"])
def test_unreadable_transcript(agent: str, service: MemoryService, tmp_path: Path) -> None:
    folder = tmp_path / "not-a-file"
    folder.mkdir()
    data = service.paths.data_dir
    compact = run_hook(agent, "pre-compact", payload(agent, "pre-compact", tmp_path, folder), data)
    assert_failed_open(compact, agent, "pre-compact", f"transcript {folder} cannot be read")
    ended = run_hook(agent, "session-end", payload(agent, "session-end", tmp_path, folder), data)
    assert_failed_open(ended, agent, "session-end", "session-end: no exchange to record")
    assert service.observations.page(service.resolve_scope(cwd=str(tmp_path))) == []


def test_unreadable_transcript_still_records_what_the_payload_has(
    service: MemoryService, tmp_path: Path
) -> None:
    data = service.paths.data_dir
    done = run_hook("claude-code", "stop", payload("claude-code", "stop", tmp_path, tmp_path), data)
    assert done.returncode == 0
    assert done.stdout == ""
    [observation] = service.observations.page(service.resolve_scope(cwd=str(tmp_path)))
    assert observation.narrative.startswith("User: (empty)\n\nAssistant: I added factorial()")


@pytest.mark.parametrize("agent", AGENTS)
def test_disabled_in_config(agent: str, service: MemoryService, tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("[memory]\nenabled = false\n")
    for event in payloads(agent):
        done = run_hook(
            agent, event, payload(agent, event, tmp_path), service.paths.data_dir, config=config
        )
        assert_failed_open(done, agent, event, "long-term memory is disabled in the config")
    project = service.resolve_scope(cwd=str(tmp_path))
    assert service.observations.page(project) == []


def test_observations_turned_off_are_obeyed(service: MemoryService, tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("[observe]\nagent_end = false\npre_compact = false\n")
    for event in ("pre-compact", "stop"):
        done = run_hook(
            "codex", event, payload("codex", event, tmp_path), service.paths.data_dir, config=config
        )
        assert done.returncode == 0
        assert done.stdout == "{}\n"
    assert service.observations.page(service.resolve_scope(cwd=str(tmp_path))) == []
    assert "agent_end observations are turned off in the config" in hook_log()


def test_stdin_never_closed(service: MemoryService, tmp_path: Path) -> None:
    """Claude Code has been seen to leave a SessionEnd hook's stdin open."""
    process = subprocess.Popen(
        [
            str(EXECUTABLE),
            "--data-dir",
            str(service.paths.data_dir),
            "hook",
            "claude-code",
            "session-end",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdin is not None
    assert process.stdout is not None
    process.stdin.write(payload("claude-code", "session-end", tmp_path))
    process.stdin.flush()
    code = process.wait(timeout=10)  # it ends by itself, its stdin still open
    out = process.stdout.read()
    process.stdin.close()
    process.stdout.close()
    assert process.stderr is not None
    process.stderr.close()
    assert (code, out) == (0, b"")
    assert len(service.observations.page(service.resolve_scope(cwd=str(tmp_path)))) == 1


@pytest.mark.parametrize(("agent", "event"), [("nosuch", "stop"), ("codex", "nosuch")])
def test_an_unknown_agent_or_event_never_exits_2(agent: str, event: str, tmp_path: Path) -> None:
    done = run_hook(agent, event, b"{}", tmp_path)
    assert done.returncode == 0
    assert done.stdout == "{}\n"
    assert "no hook for agent" in hook_log()


def test_the_nudge_needs_no_database(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[nudge]\ninterval = 1\ntext = "Save it with memory_write."\n')
    done = run_hook(
        "codex",
        "user-prompt",
        payload("codex", "user-prompt", tmp_path),
        tmp_path / "absent",
        config=config,
    )
    assert done.returncode == 0
    result = check_output("codex", "user-prompt", done.stdout)
    assert result["hookSpecificOutput"]["additionalContext"] == "Save it with memory_write."
    assert "relevant memories skipped: no database at" in hook_log()


@pytest.mark.parametrize("agent", ["claude-code", "gemini", "generic"])
@pytest.mark.parametrize("kind", ["fifo", "endless device"])
def test_a_transcript_that_is_not_a_regular_file_is_neither_waited_for_nor_read(
    agent: str, kind: str, service: MemoryService, tmp_path: Path
) -> None:
    """Opening a FIFO waits for a writer; /dev/zero never ends (a hook grew to 0.9 GB)."""
    path = Path("/dev/zero")
    if kind == "fifo":
        path = tmp_path / "transcript.jsonl"
        os.mkfifo(path)
    stdin = payload(agent, "pre-compact", tmp_path, path)
    done = run_hook(agent, "pre-compact", stdin, service.paths.data_dir)
    assert_failed_open(done, agent, "pre-compact", f"transcript {path} cannot be read: not a")
    assert "no result within the deadline" not in hook_log()


@pytest.mark.parametrize("agent", ["gemini", "generic"])
def test_an_odd_transcript_line_loses_only_itself(
    agent: str, service: MemoryService, tmp_path: Path
) -> None:
    """A line nested too deep to decode, a record whose role is a list: skipped, the rest of
    the transcript is recorded (it was all lost)."""
    odd = tmp_path / "odd.jsonl"
    odd_lines = ["[" * 100_000, json.dumps({"role": ["user"], "content": "a list"})]
    odd.write_text("\n".join([transcript(agent).read_text(), *odd_lines]) + "\n")
    stdin = json.loads(payload(agent, "pre-compact", tmp_path, odd))
    stdin["trigger"] = "manual"  # Gemini's "auto" is no compaction below its threshold
    done = run_hook(agent, "pre-compact", json.dumps(stdin).encode(), service.paths.data_dir)
    assert done.returncode == 0, done.stderr
    [observation] = service.observations.page(service.resolve_scope(cwd=str(tmp_path)))
    assert observation.kind.value == "pre_compact"
    assert "a list" not in observation.narrative


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (["hook", "claude-code"], ""),
        (["hook", "claude-code", "stop", "extra"], ""),
        (["hook", "claude-code", "stop", "--bogus"], ""),
        (["hook", "claude-code", "stop", "--data-dir"], ""),
        (["hook", "codex", "stop", "--config"], "{}\n"),
        (["hook"], "{}\n"),
        (["-v", "hook", "gemini", "--no-such-option", "stop"], "{}\n"),
    ],
)
def test_a_malformed_hook_command_line_answers_empty_and_exits_0(
    words: list[str], expected: str, tmp_path: Path
) -> None:
    """argparse would print its usage and exit 2, which blocks the agent."""
    done = run_ltm_desktop(words, payload("codex", "stop", tmp_path))
    assert (done.returncode, done.stdout, done.stderr) == (0, expected, "")
    assert "failed open (empty result): bad command line (" in hook_log()
    assert f"`ltm-desktop {' '.join(words)}`" in hook_log()


@pytest.mark.parametrize("words", [["status", "--bogus"], ["integrate"], ["tools", "--format"]])
def test_other_commands_still_exit_2_on_bad_usage(words: list[str]) -> None:
    done = run_ltm_desktop(words, b"")
    assert done.returncode == 2
    assert "usage: ltm-desktop" in done.stderr


@pytest.mark.parametrize(("closed", "expected"), [(0, "{}\n"), (1, ""), (2, "{}\n")])
def test_a_hook_started_with_stdin_stdout_or_stderr_closed(
    closed: int, expected: str, tmp_path: Path
) -> None:
    """``2>&-`` printed "unexpected AttributeError" after the result (Codex then rejects
    it) and exited 1; ``>&-`` exited 1 too."""
    done = run_hook(
        "codex", "stop", payload("codex", "stop", tmp_path), tmp_path / "absent", closed=closed
    )
    assert (done.returncode, done.stdout) == (0, expected), done.stderr
    assert "error" not in done.stderr
    assert "done in" in hook_log()


def fill_log_dir(kind: str) -> Path:
    """The hooks' log file made ``kind``: a FIFO, or a symlink to /dev/full."""
    path = hook_log_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/full")
    return path


@pytest.mark.parametrize("kind", ["fifo", "/dev/full"])
@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_a_log_file_that_is_not_a_regular_file_is_left_alone(
    kind: str, agent: str, tmp_path: Path
) -> None:
    """A FIFO held every hook forever (it was opened before the watchdog started); a
    symlink to /dev/full printed logging's "--- Logging error ---" traceback each time."""
    fill_log_dir(kind)
    done = run_hook(agent, "stop", payload(agent, "stop", tmp_path), tmp_path / "absent")
    assert (done.returncode, done.stdout, done.stderr) == (0, EMPTY[agent], "")


def test_a_log_file_that_cannot_be_written_prints_nothing(tmp_path: Path) -> None:
    """A full disk (here: the process may not make any file larger) fails every write."""
    path = hook_log_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("an earlier line\n")

    def no_bigger_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (path.stat().st_size,) * 2)

    done = subprocess.run(
        [str(EXECUTABLE), "--data-dir", str(tmp_path / "absent"), "hook", "codex", "stop"],
        input=payload("codex", "stop", tmp_path),
        capture_output=True,
        timeout=20,
        preexec_fn=no_bigger_files,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, b"{}\n", b"")
    assert hook_log() == "an earlier line\n"


@pytest.mark.parametrize("kind", ["fifo", "endless device"])
def test_a_config_file_that_is_not_a_regular_file_is_refused_at_once(
    kind: str, service: MemoryService, tmp_path: Path
) -> None:
    """Reading a FIFO waits for a writer; /dev/zero never ends."""
    config = Path("/dev/zero")
    if kind == "fifo":
        config = tmp_path / "config.toml"
        os.mkfifo(config)
    done = run_hook(
        "gemini",
        "session-start",
        payload("gemini", "session-start", tmp_path),
        service.paths.data_dir,
        config=config,
    )
    assert_failed_open(done, "gemini", "session-start", f"config file {config} is not a regular")
    assert "no result within the deadline" not in hook_log()


def test_stdin_is_read_no_further_than_16_mib(tmp_path: Path) -> None:
    """An endless stdin (/dev/zero) grew a hook to 0.8 GB in its half second of reading."""
    code = (
        "import resource, subprocess, sys\n"
        "with open('/dev/zero', 'rb') as zero:\n"
        "    done = subprocess.run(sys.argv[1:], stdin=zero, capture_output=True, timeout=20)\n"
        "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024\n"
        "print(done.returncode, repr(done.stdout), peak)\n"
    )
    hook = [str(EXECUTABLE), "--data-dir", str(tmp_path / "absent"), "hook", "codex", "stop"]
    done = subprocess.run(
        [sys.executable, "-c", code, *hook], capture_output=True, text=True, timeout=60, check=True
    )
    code_, stdout, megabytes = done.stdout.split()
    assert (code_, stdout) == ("0", "b'{}\\n'")
    assert int(megabytes) < 200
    assert "stdin holds more than 16,777,216 bytes; not read further" in hook_log()


def test_stdin_nested_too_deep_is_a_bad_payload(tmp_path: Path) -> None:
    done = run_hook("gemini", "stop", b"[" * 100_000, tmp_path / "absent")
    assert_failed_open(done, "gemini", "stop", "stdin is JSON nested too deep to read")
    assert "unexpected error" not in hook_log()


def test_a_payload_already_waiting_is_read_however_late_the_hook_gets_to_it() -> None:
    """On a busy machine Python's start can outlast the wait for stdin: the payload that
    was there all along must still be read (it was dropped in 5 of 8 runs under load)."""
    from ltm_desktop.agent.hooks.runner import read_stdin

    sent = json.dumps({"session_id": "s", "cwd": "/src/shop", "notes": "x" * 30_000}).encode()
    read_end, write_end = os.pipe()
    with os.fdopen(read_end, "rb") as stdin:
        with os.fdopen(write_end, "wb") as writer:
            writer.write(sent)  # less than a pipe holds: all there before the read starts
        too_late = time.monotonic() - 1.0  # the wait ran out before the first read
        assert read_stdin(stdin, too_late) == sent


def test_a_writer_that_keeps_trickling_does_not_hold_the_hook_past_its_wait() -> None:
    """Reading what is already there after the wait must end: a writer that never stops
    sending kept the read going until the watchdog answered empty."""
    import threading

    from ltm_desktop.agent.hooks.runner import read_stdin

    read_end, write_end = os.pipe()
    stop = threading.Event()

    def trickle() -> None:
        with os.fdopen(write_end, "wb", buffering=0) as writer:
            writer.write(b"[" + b"1," * 10_000)
            while not stop.is_set():
                try:
                    writer.write(b"1," * 2_000 + b"1}")
                except BrokenPipeError:
                    return

    thread = threading.Thread(target=trickle, daemon=True)
    thread.start()
    with os.fdopen(read_end, "rb") as stdin:
        finishes(lambda: read_stdin(stdin, time.monotonic() + 0.2))  # it ran until killed
        stop.set()
    thread.join(5)


@pytest.mark.parametrize(
    ("value", "event", "seconds", "ignored"),
    [
        ("", "session-start", 1.5, False),  # the agents' budget
        ("", "session-end", 1.0, False),  # Claude Code's SessionEnd hooks share 1.5 s
        ("4", "session-end", 4.0, False),  # a slower machine allows more
        ("0.1", "stop", 1.5, True),  # too little to do anything: ignored, and said why
        ("soon", "stop", 1.5, True),
    ],
)
def test_the_deadline_may_be_set_for_a_slow_machine(
    monkeypatch: pytest.MonkeyPatch, value: str, event: str, seconds: float, ignored: bool
) -> None:
    monkeypatch.setenv(ENV_DEADLINE, value)
    chosen, why = deadline_for(event)
    assert chosen == seconds
    assert bool(why) is ignored
    if ignored:
        assert f"{ENV_DEADLINE}={value!r} is not 0.5-60 seconds; ignored" == why

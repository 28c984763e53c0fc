"""``kill -9`` of a real ``ltm-desktop serve`` while four agents write through its socket,
on SQLite and on PostgreSQL (``LTM_DESKTOP_DATABASE_URL`` set, as a user sets it): every
write a client was told had succeeded is there when ``serve`` starts again on the same
store, and ``verify`` finds the audit chain whole. What was in flight at the kill may or
may not be there; what was acknowledged must."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from ltm_desktop.api.client import Client
from tests.api.conftest import wait_until
from tests.api.test_lifecycle import reap, serve
from tests.conftest import ProcessEnv
from tests.console import CONSOLE_SCRIPT

pytestmark = [pytest.mark.every_backend, pytest.mark.slow]

WRITERS = 4
BEFORE_KILL = 40  # acknowledged adds per writer before the kill: mid-stream for each


@dataclass
class Acknowledged:
    """What one writer was told: memories added (id -> content) and importances set."""

    added: dict[str, str] = field(default_factory=dict)
    importance: dict[str, int] = field(default_factory=dict)
    ended_by: list[BaseException] = field(default_factory=list)


def _write(sock: Path, n: int, mine: Acknowledged) -> None:
    """Adds, and edits every third memory as of the version it read, until the server dies."""
    try:
        with Client(sock, client_name=f"writer-{n}") as client:
            for i in range(1_000_000):
                content = f"writer {n} wrote fact {i} marker{n}x{i}q"
                memory = client.memory_add(content, cwd=f"/srv/app{n % 2}")["memory"]
                mine.added[memory["id"]] = content
                if i % 3 == 0:
                    level = i % 9 + 1
                    client.memory_update(
                        memory["id"], importance=level, expected_updated_at=memory["updated_at"]
                    )
                    mine.importance[memory["id"]] = level
    except Exception as exc:  # the server dies under us: that is the point
        mine.ended_by.append(exc)


def _ready(process: subprocess.Popen[str]) -> None:
    assert process.stdout is not None
    line = process.stdout.readline()
    assert "serving" in line, (line, process.stderr and process.stderr.read())


def test_kill_9_mid_stream_loses_no_acknowledged_write(
    tmp_path: Path, short_dir: Path, process_env: ProcessEnv
) -> None:
    data = tmp_path / "data"
    env = process_env(data)
    sock = short_dir / "k.sock"
    process = serve(data, sock, env=env)
    try:
        _ready(process)
        acknowledged = [Acknowledged() for _ in range(WRITERS)]
        threads = [
            threading.Thread(target=_write, args=(sock, n, acknowledged[n]), name=f"writer-{n}")
            for n in range(WRITERS)
        ]
        for thread in threads:
            thread.start()
        wait_until(
            lambda: all(len(a.added) >= BEFORE_KILL or a.ended_by for a in acknowledged),
            timeout=120,
        )
        os.kill(process.pid, signal.SIGKILL)  # while every writer is still writing
        for thread in threads:
            thread.join(timeout=60)
        assert process.wait(timeout=30) == -signal.SIGKILL
    finally:
        reap(process)
    for mine in acknowledged:
        assert len(mine.added) >= BEFORE_KILL, mine.ended_by
        assert len(mine.ended_by) == 1  # each writer ran until the kill, not into a bug

    again = serve(data, sock, env=env)  # the same store, a new process
    try:
        _ready(again)
        with Client(sock, client_name="checker") as client:
            for mine in acknowledged:
                for memory_id, content in mine.added.items():
                    memory = client.memory_get(memory_id)
                    assert memory["content"] == content
                    if memory_id in mine.importance:
                        assert memory["importance"] == mine.importance[memory_id]
            total = sum(len(mine.added) for mine in acknowledged)
            counted = sum(
                client.memory_list(cwd=cwd, limit=1)["total"] for cwd in ("/srv/app0", "/srv/app1")
            )
            assert total <= counted <= total + WRITERS  # at most one unanswered add each
            after = client.memory_add("written after the restart", cwd="/srv/app0")
            assert after["status"] == "created"
        again.send_signal(signal.SIGTERM)
        assert again.wait(timeout=30) == 0
    finally:
        reap(again)

    verified = subprocess.run(
        [CONSOLE_SCRIPT, "--data-dir", str(data), "verify"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )
    assert verified.returncode == 0, verified.stdout + verified.stderr

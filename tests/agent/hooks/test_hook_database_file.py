"""A hook never creates a database, and never follows a symlink in the data dir: an empty
``ltm.sqlite``, another program's SQLite file and a symlinked one are refused (the hook
still fails open), and left as they were."""

from __future__ import annotations

import hashlib
import sqlite3
import subprocess
from pathlib import Path

import pytest

from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.paths import DataPaths
from tests.agent.hook_process import HookResult, hook_log, payload, run_hook
from tests.agent.hook_schemas import check_output
from tests.console import CONSOLE_SCRIPT, assert_one_error_line

EMPTY = {"claude-code": "", "codex": "{}\n"}
EVENTS = ("stop", "session-start")


def _data_dir(tmp_path: Path) -> Path:
    data = tmp_path / "linked-data"
    data.mkdir(mode=0o700)
    return data


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def assert_refused(done: HookResult, agent: str, event: str, logged: str) -> None:
    assert done.returncode == 0, done.stderr
    assert done.stdout == EMPTY[agent]
    check_output(agent, event, done.stdout)
    assert "Traceback" not in done.stderr
    assert logged in hook_log()


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
@pytest.mark.parametrize("event", EVENTS)
def test_an_empty_database_file_is_never_filled(agent: str, event: str, tmp_path: Path) -> None:
    data = _data_dir(tmp_path)
    db = DataPaths(data).db_path
    db.touch(mode=0o600)
    done = run_hook(agent, event, payload(agent, event, tmp_path), data)
    assert_refused(done, agent, event, f"{db} is empty (0 bytes), not an ltm-desktop database")
    assert db.stat().st_size == 0
    assert sorted(p.name for p in data.iterdir() if p.name.startswith("ltm")) == ["ltm.sqlite"]


def test_another_programs_sqlite_file_is_left_alone(tmp_path: Path) -> None:
    data = _data_dir(tmp_path)
    db = DataPaths(data).db_path
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE notes (text TEXT)")
    conn.close()
    before = _digest(db)
    done = run_hook("codex", "stop", payload("codex", "stop", tmp_path), data)
    assert_refused(done, "codex", "stop", "is an SQLite database, but not an ltm-desktop one")
    assert _digest(db) == before


@pytest.fixture
def linked(service: MemoryService, tmp_path: Path) -> tuple[Path, Path]:
    """A data dir whose ``ltm.sqlite`` is a symlink to a real database elsewhere:
    (the data dir, the database linked to)."""
    target = Path(service.store.location)
    service.close()
    data = _data_dir(tmp_path)
    DataPaths(data).db_path.symlink_to(target)
    return data, target


@pytest.mark.parametrize("event", EVENTS)
def test_a_symlinked_database_is_never_followed_by_a_hook(
    linked: tuple[Path, Path], tmp_path: Path, event: str
) -> None:
    data, target = linked
    before = _digest(target)
    done = run_hook("claude-code", event, payload("claude-code", event, tmp_path), data)
    assert_refused(done, "claude-code", event, f"{data / 'ltm.sqlite'} is a symbolic link")
    assert _digest(target) == before
    assert not target.with_name(target.name + "-wal").exists()


@pytest.mark.parametrize("command", [("status",), ("verify",), ("backup", "-o", "copy.sqlite")])
def test_a_symlinked_database_is_one_clear_line_for_a_command(
    linked: tuple[Path, Path], tmp_path: Path, command: tuple[str, ...]
) -> None:
    data, target = linked
    before = _digest(target)
    done = subprocess.run(
        [CONSOLE_SCRIPT, *command, "--data-dir", str(data)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
        cwd=tmp_path,
    )
    assert_one_error_line(done, f"{data / 'ltm.sqlite'} is a symbolic link")
    assert _digest(target) == before
    assert not (tmp_path / "copy.sqlite").exists()

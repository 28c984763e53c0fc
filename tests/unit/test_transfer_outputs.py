"""Where ``export -o`` and ``backup -o`` write, through the real console script: a new or
regular file is replaced whole; anything else (a symlink, a FIFO, a device, a directory) is
refused and left as it was: renaming over it would put a regular file in the place of
/dev/stdout or /dev/full, or of a link. ``export -o -`` writes to standard output;
``backup -o -`` is refused."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest

from ltm_desktop.backups import check_backup_file
from ltm_desktop.core.records import GLOBAL_PROJECT_ID, MemoryDraft
from ltm_desktop.launching import open_service
from tests.console import CONSOLE_SCRIPT, assert_one_error_line


@pytest.fixture
def data(tmp_path: Path) -> list[str]:
    """A data dir holding one memory, as ``--data-dir`` arguments."""
    opened = open_service(tmp_path / "data")
    try:
        opened.service.add(GLOBAL_PROJECT_ID, MemoryDraft("Deploys run on Fridays"), "tester")
    finally:
        opened.service.close()
    return ["--data-dir", str(tmp_path / "data")]


def console(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [CONSOLE_SCRIPT, *args], capture_output=True, text=True, timeout=60, cwd=cwd, check=False
    )


def is_fifo(path: Path) -> bool:
    return stat.S_ISFIFO(path.lstat().st_mode)


@pytest.mark.parametrize("command", ["export", "backup"])
def test_a_fifo_is_refused_and_left_in_place(tmp_path: Path, data: list[str], command: str) -> None:
    fifo = tmp_path / "out"
    os.mkfifo(fifo)
    assert_one_error_line(console(*data, command, "-o", str(fifo)), str(fifo), "a FIFO")
    assert is_fifo(fifo)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "out"]  # no temp file left


@pytest.mark.slow
@pytest.mark.parametrize("command", ["export", "backup"])
def test_a_directory_or_a_symlink_is_refused_and_left_as_it_was(
    tmp_path: Path, data: list[str], command: str
) -> None:
    """A symlink whatever it names: replacing the link is not what was asked, and following
    it is wrong for /dev/stdout (``>> log``: renaming over the log drops what it held)."""
    folder, regular = tmp_path / "folder", tmp_path / "regular.txt"
    folder.mkdir()
    regular.write_text("kept")
    assert_one_error_line(console(*data, command, "-o", str(folder)), str(folder), "a directory")
    for target in (regular, folder, tmp_path / "missing"):
        link = tmp_path / "link"
        link.unlink(missing_ok=True)
        link.symlink_to(target)
        result = console(*data, command, "-o", str(link))
        assert_one_error_line(result, str(link), f"a symbolic link (to {target})")
        assert link.is_symlink()
    assert regular.read_text() == "kept"
    assert list(folder.iterdir()) == []
    assert not (tmp_path / "missing").exists()


def test_export_and_backup_replace_a_regular_file(tmp_path: Path, data: list[str]) -> None:
    exported, copy = tmp_path / "memories.jsonl", tmp_path / "ltm.sqlite"
    exported.write_text("old\n")
    copy.write_text("an older copy")
    result = console(*data, "export", "-o", str(exported))
    assert result.returncode == 0, result.stderr
    lines = exported.read_text().splitlines()
    assert json.loads(lines[0])["type"] == "header"
    assert "Deploys run on Fridays" in lines[-1]
    result = console(*data, "backup", "-o", str(copy))
    assert result.returncode == 0, result.stderr
    assert check_backup_file(copy)[1] == 1


def test_export_to_dash_writes_standard_output(tmp_path: Path, data: list[str]) -> None:
    result = console(*data, "export", "-o", "-", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.splitlines()[0])["type"] == "header"
    assert "Deploys run on Fridays" in result.stdout
    assert not (tmp_path / "-").exists()


def test_backup_to_dash_is_refused(tmp_path: Path, data: list[str]) -> None:
    result = console(*data, "backup", "-o", "-", cwd=tmp_path)
    assert_one_error_line(result, "standard output")
    assert not (tmp_path / "-").exists()

"""``integrate`` and what stands where a config file should be: a FIFO made it wait for a
writer forever, a link to ``/dev/zero`` made it read without end."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.agent.hook_process import EXECUTABLE
from tests.agent.integrate.test_integrate import GEMINI_SETTINGS, snapshot
from tests.console import assert_one_error_line

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and /dev/zero: POSIX")


def integrate(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``integrate`` that must answer at once (a hang fails in 20 s, not 60)."""
    env = {k: v for k, v in os.environ.items() if k != "CODEX_HOME"}
    env["HOME"] = str(home)
    return subprocess.run(
        [str(EXECUTABLE), "integrate", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=home,
        timeout=20,
    )


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    return home


@pytest.mark.parametrize("uninstall", [False, True])
def test_a_fifo_in_place_of_the_settings_is_refused_at_once(home: Path, uninstall: bool) -> None:
    settings = home / ".gemini/settings.json"
    os.mkfifo(settings)

    done = integrate(home, "gemini", *(["--uninstall"] if uninstall else []))

    assert_one_error_line(done, f"{settings} is not a regular file but a FIFO")
    assert settings.is_fifo()
    assert sorted(p.name for p in home.rglob("*")) == [".gemini", "settings.json"]


def test_a_link_to_a_device_is_refused_by_what_it_names(home: Path) -> None:
    settings = home / ".gemini/settings.json"
    settings.symlink_to("/dev/zero")

    done = integrate(home, "gemini")

    assert_one_error_line(done, "/dev/zero is not a regular file but a character device")
    assert settings.is_symlink()
    assert os.readlink(settings) == "/dev/zero"


def test_a_fifo_named_like_a_backup_is_passed_over(home: Path) -> None:
    """Uninstall reads the backups it made to find the file as it was."""
    settings = home / ".gemini/settings.json"
    settings.write_text(GEMINI_SETTINGS)
    assert integrate(home, "gemini").returncode == 0
    os.mkfifo(home / ".gemini/settings.json.ltm-desktop-29991231-235959.bak")

    done = integrate(home, "gemini", "--uninstall")

    assert done.returncode == 0, done.stderr
    assert settings.read_text() == GEMINI_SETTINGS
    assert snapshot(home)[".gemini/settings.json"] == GEMINI_SETTINGS.encode()

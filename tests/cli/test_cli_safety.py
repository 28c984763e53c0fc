"""The real console script on unsafe files and dirs: one ``ltm-desktop: error:`` line, never
a traceback, and nothing used or changed."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from ltm_desktop import cli
from ltm_desktop.core.errors import UnsafePath
from ltm_desktop.core.files.filelock import FileLock
from tests.console import CONSOLE_SCRIPT, NOBODY, assert_one_error_line

needs_root = pytest.mark.skipif(
    os.getuid() != 0, reason="only root can give a file to another user (nobody)"
)


@pytest.fixture
def short_dir() -> Iterator[Path]:
    """A private dir with a path short enough for a Unix socket."""
    path = Path(tempfile.mkdtemp(prefix="ltm-cli-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def run(*args: str, umask: int = -1, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [CONSOLE_SCRIPT, *args],
        capture_output=True,
        text=True,
        timeout=60,
        umask=umask,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen", **env},
    )


def serve(data: Path, sock: Path) -> subprocess.CompletedProcess[str]:
    """``serve`` on a data dir whose lock cannot be taken: it must exit at once."""
    return run("--data-dir", str(data), "serve", "--socket", str(sock))


@needs_root
def test_a_lock_file_of_another_user_is_one_clear_line(tmp_path: Path, short_dir: Path) -> None:
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    (data / "server.lock").touch(mode=0o600)
    os.chown(data / "server.lock", NOBODY, NOBODY)
    result = serve(data, short_dir / "s.sock")
    assert_one_error_line(result, str(data / "server.lock"), "another user")
    assert not (short_dir / "s.sock").exists()


def test_a_symlinked_lock_file_is_one_clear_line_and_not_followed(
    tmp_path: Path, short_dir: Path
) -> None:
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    victim = tmp_path / "victim"
    (data / "server.lock").symlink_to(victim)
    result = serve(data, short_dir / "s.sock")
    assert_one_error_line(result, str(data / "server.lock"), "symbolic link")
    assert not victim.exists()


def test_a_socket_lock_in_the_way_is_one_clear_line(tmp_path: Path, short_dir: Path) -> None:
    (short_dir / "s.sock.lock").mkdir()
    result = serve(tmp_path / "data", short_dir / "s.sock")
    assert_one_error_line(result, str(short_dir / "s.sock.lock"))


@needs_root
def test_a_lock_file_we_may_not_open_is_a_clear_error(tmp_path: Path) -> None:
    """What another user sees: our lock file is 0600 and theirs to fear, not to crash on."""
    base = Path(tempfile.mkdtemp(prefix="ltm-lock-"))
    try:
        base.chmod(0o755)
        lock_path = base / "server.lock"
        lock_path.touch(mode=0o600)
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child, as nobody; never returns into pytest
            try:
                os.setgroups([])
                os.setgid(NOBODY)
                os.setuid(NOBODY)
                try:
                    FileLock(lock_path).acquire()
                    outcome = "acquired"
                except UnsafePath as exc:
                    outcome = f"UnsafePath: {exc}"
                except BaseException as exc:
                    outcome = f"{type(exc).__name__}: {exc}"
                os.write(write_end, outcome.encode())
            finally:
                os._exit(0)
        os.close(write_end)
        with os.fdopen(read_end, "rb") as pipe:
            outcome = pipe.read().decode()
        os.waitpid(pid, 0)
    finally:
        shutil.rmtree(base)
    assert outcome.startswith("UnsafePath: cannot open the lock file"), outcome
    assert str(lock_path) in outcome


@pytest.mark.parametrize("command", [["status"], ["serve"], []])
def test_a_data_dir_others_can_write_to_is_one_clear_line(
    tmp_path: Path, command: list[str]
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    data.chmod(0o777)
    result = run("--data-dir", str(data), *command)
    assert_one_error_line(result, str(data), f"chmod 700 {data}")
    assert list(data.iterdir()) == []
    assert stat.S_IMODE(data.stat().st_mode) == 0o777


@needs_root
def test_a_data_dir_of_another_user_is_one_clear_line(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    os.chown(data, NOBODY, NOBODY)
    result = run("--data-dir", str(data), "status")
    assert_one_error_line(result, str(data), "another user")
    assert list(data.iterdir()) == []


def test_missing_parents_of_the_data_dir_are_private_with_umask_000(tmp_path: Path) -> None:
    data = tmp_path / "new" / "deeper" / "data"
    notes = tmp_path / "notes.md"
    notes.write_text("- The first fact of a new data dir\n")
    result = run("--data-dir", str(data), "import", "--project", "global", str(notes), umask=0)
    assert result.returncode == 0, result.stderr
    for path in (tmp_path / "new", tmp_path / "new" / "deeper", data):
        assert stat.S_IMODE(path.stat().st_mode) == 0o700, path


def test_a_symlinked_precis_dir_is_one_clear_line(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    (tmp_path / "elsewhere").mkdir()
    (data / "precis").symlink_to(tmp_path / "elsewhere")
    result = run("--data-dir", str(data), "status")
    assert_one_error_line(result, str(data / "precis"), "symbolic link")
    assert list((tmp_path / "elsewhere").iterdir()) == []


@pytest.mark.parametrize(
    "args",
    [
        ["--data-dir", "{file}/sub", "status"],
        ["--data-dir", "{file}", "status"],
        ["install-desktop-entry"],
    ],
)
def test_unusable_paths_are_one_clear_line(tmp_path: Path, args: list[str]) -> None:
    if args == ["install-desktop-entry"] and not sys.platform.startswith("linux"):
        pytest.skip("desktop entries are installed on Linux only")
    in_the_way = tmp_path / "a-file"
    in_the_way.write_text("not a directory")
    result = run(*(a.format(file=in_the_way) for a in args), XDG_DATA_HOME=str(in_the_way))
    assert_one_error_line(result, str(in_the_way))
    assert in_the_way.read_text() == "not a directory"


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (UnsafePath("the data dir /x is writable by others\nrun chmod 700 /x"), "chmod 700 /x"),
        (
            PermissionError(13, "Permission denied", "/etc/x"),
            "cannot use /etc/x: Permission denied",
        ),
        (RuntimeError("boom"), "unexpected RuntimeError: boom"),
    ],
)
def test_every_error_is_one_line_without_a_traceback(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    error: BaseException,
    expected: str,
) -> None:
    def fail(args: object) -> int:
        raise error

    monkeypatch.setitem(cli.COMMANDS, "status", fail)
    assert cli.main(["status"]) == cli.EXIT_ERROR
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("ltm-desktop: error: ")
    assert expected in err
    assert "Traceback" not in err

"""Store faults seen from the real ``ltm-desktop`` console script: a read-only database is
refused at start, a data dir removed under ``serve`` stops it acknowledging writes, and
``status`` and ``health`` say how durable a write is."""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from ltm_desktop.api.client import Client, InternalError
from ltm_desktop.launching import open_service

LTM = Path(sys.executable).with_name("ltm-desktop")


def ltm(*args: str | Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LTM), *map(str, args)], capture_output=True, text=True, timeout=timeout
    )


def cannot_write(path: Path) -> bool:
    """Whether this process really cannot write ``path`` (tried, not inferred)."""
    target = path / "probe" if path.is_dir() else path
    try:
        if path.is_dir():
            target.touch()
            target.unlink()
        else:
            with open(path, "r+b"):  # no SQLite connection is open on it in this process
                pass
    except OSError:
        return True
    return False


@contextmanager
def read_only(path: Path) -> Iterator[None]:
    """``path`` read-only for every process: file modes, or for root (whom modes do not
    stop) a read-only bind mount of it."""
    if os.geteuid() != 0:
        mode = stat.S_IMODE(path.stat().st_mode)
        path.chmod(0o500 if path.is_dir() else 0o400)
        try:
            yield
        finally:
            path.chmod(mode)
        return
    bind = subprocess.run(["mount", "--bind", str(path), str(path)], capture_output=True, text=True)
    if bind.returncode != 0:
        pytest.skip(
            f"running as root, who writes through file modes, without mount ({bind.stderr})"
        )
    try:
        subprocess.run(["mount", "-o", "remount,ro,bind", str(path)], check=True)
        yield
    finally:
        subprocess.run(["umount", str(path)], check=True)


@pytest.mark.parametrize("what", ["database file", "data dir"])
def test_a_read_only_database_is_refused_at_start(
    tmp_path: Path,
    short_dir: Path,
    what: str,
) -> None:
    data = tmp_path / "data"
    assert ltm("--data-dir", data, "status").returncode == 0  # creates it, then closes it
    target = data / "ltm.sqlite" if what == "database file" else data
    with read_only(target):
        assert cannot_write(target)
        status = ltm("--data-dir", data, "status")
        assert status.returncode == 1
        assert status.stderr.startswith("ltm-desktop: error: ")
        assert len(status.stderr.strip().splitlines()) == 1
        assert "read-only" in status.stderr
        assert str(target) in status.stderr

        served = ltm("--data-dir", data, "serve", "--socket", short_dir / "ro.sock", timeout=30)
        assert served.returncode == 1
        assert "serving" not in served.stdout  # no ready line for a server that cannot write
        assert "read-only" in served.stderr
        assert "Traceback" not in served.stderr
    assert ltm("--data-dir", data, "status").returncode == 0  # writable again: served again


def test_serve_stops_acknowledging_writes_once_its_data_dir_is_removed(
    tmp_path: Path,
    short_dir: Path,
) -> None:
    data = tmp_path / "data"
    sock = short_dir / "gone.sock"
    process = subprocess.Popen(
        [str(LTM), "--data-dir", str(data), "serve", "--socket", str(sock)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        assert "serving" in process.stdout.readline()
        with Client(sock) as client:
            client.memory_add("kept while the data dir was there", cwd="/srv/app")
            assert client.health()["ok"] is True
            shutil.rmtree(data)
            health = client.health()
            assert health["ok"] is False
            assert any(str(data / "ltm.sqlite") in p for p in health["problems"])
            assert health["db_path"] == str(data / "ltm.sqlite")  # the old keys stay
            with pytest.raises(InternalError) as info:
                client.memory_add("this would be acknowledged and lost", cwd="/srv/app")
            assert "removed or replaced" in str(info.value)
            assert "Restart" in str(info.value)
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()
        process.stdout.close()  # type: ignore[union-attr]
        process.stderr.close()  # type: ignore[union-attr]
    assert not (data / "ltm.sqlite").exists()  # nothing recreated an empty database


@pytest.mark.slow
def test_status_and_health_say_how_durable_a_write_is(
    tmp_path: Path,
    short_dir: Path,
) -> None:
    data = tmp_path / "data"
    open_service(data).service.close()
    report = json.loads(ltm("--data-dir", data, "status", "--json").stdout)
    assert report["synchronous"] == "normal"
    assert report["problems"] == []
    text = ltm("--data-dir", data, "status").stdout
    assert "synchronous=NORMAL" in text
    assert "power cut" in text
    sock = short_dir / "h.sock"
    process = subprocess.Popen(
        [str(LTM), "--data-dir", str(data), "serve", "--socket", str(sock)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        assert "serving" in process.stdout.readline()
        with Client(sock) as client:
            health = client.health()
        assert health["synchronous"] == "normal"
        assert health["ok"] is True
        assert health["problems"] == []
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
        process.stdout.close()  # type: ignore[union-attr]
        process.stderr.close()  # type: ignore[union-attr]

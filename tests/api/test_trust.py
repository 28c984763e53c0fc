"""Local trust: a client talks only to a server of its own user, in a directory only we control.

The impostor is a real listening socket in a forked child (run as ``nobody`` when the
tests run as root); the client is the real ``ltm-desktop`` console script.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from ltm_desktop.api.client import Client, UntrustedServer
from tests.console import CONSOLE_SCRIPT, NOBODY, assert_one_error_line

pytestmark = pytest.mark.every_backend

STOP = b"stop\n"
INJECTED = "INJECTED by someone else"


def _drop_to_nobody() -> None:
    os.setgroups([])
    os.setgid(NOBODY)
    os.setuid(NOBODY)


def _impostor(path: Path, *, drop_before_bind: bool, drop: bool, report: int) -> None:
    """The child: listen on ``path``, answer every request with a fake result, and report
    each received chunk (hex) on ``report``, until a connection says ``stop``."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    if drop and drop_before_bind:
        _drop_to_nobody()
    sock.bind(str(path))
    if drop and not drop_before_bind:
        _drop_to_nobody()  # the kernel records the listener's credentials at listen()
    sock.listen(8)
    os.write(report, b"ready\n")
    while True:
        conn, _ = sock.accept()
        buffer = b""
        while chunk := conn.recv(65536):
            if buffer + chunk == STOP:
                return
            os.write(report, chunk.hex().encode() + b"\n")
            buffer += chunk
            while b"\n" in buffer:
                line, _, buffer = buffer.partition(b"\n")
                request_id = json.loads(line).get("id")
                answer = {"jsonrpc": "2.0", "id": request_id, "result": {"text": INJECTED}}
                conn.sendall(json.dumps(answer).encode() + b"\n")
        conn.close()


class Impostor:
    """Another process listening where the client will connect; records what it is sent."""

    def __init__(self, path: Path, *, as_nobody: bool, drop_before_bind: bool = False) -> None:
        self.path = path
        read_end, write_end = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:  # pragma: no cover - the child; never returns into pytest
            code = 1
            try:
                os.close(read_end)
                _impostor(path, drop_before_bind=drop_before_bind, drop=as_nobody, report=write_end)
                code = 0
            finally:
                os._exit(code)
        os.close(write_end)
        self._pipe = os.fdopen(read_end, "rb")
        ready, _, _ = select.select([self._pipe], [], [], 30)
        assert ready, "the impostor did not start"
        assert self._pipe.readline() == b"ready\n"

    def received(self) -> bytes:
        """Stop it (after the connections made so far) and return all it was sent."""
        stopper = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        stopper.settimeout(30)
        stopper.connect(str(self.path))
        stopper.sendall(STOP)
        stopper.close()
        _, status = os.waitpid(self.pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        lines = self._pipe.read().split()
        self._pipe.close()
        return b"".join(bytes.fromhex(line.decode()) for line in lines)

    def kill(self) -> None:
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        if not self._pipe.closed:
            self._pipe.close()


@pytest.fixture
def scratch() -> Iterator[Path]:
    """A short path under the temp dir (Unix socket paths are short), removed afterwards."""
    path = Path(tempfile.mkdtemp(prefix="ltm-trust-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def call(*args: str, data_dir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [CONSOLE_SCRIPT, "--data-dir", str(data_dir), *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.skipif(os.getuid() != 0, reason="only root can run a listener as another user")
def test_a_server_of_another_user_is_sent_nothing(scratch: Path, tmp_path: Path) -> None:
    scratch.chmod(0o700)  # our own private directory: only the peer's uid can tell
    path = scratch / "ltm.sock"
    impostor = Impostor(path, as_nobody=True, drop_before_bind=False)
    try:
        assert path.stat().st_uid == os.getuid()  # even the socket file looks like ours
        result = call(
            "call",
            "prompt.section",
            '{"cwd": "/srv/app"}',
            "--socket",
            str(path),
            data_dir=tmp_path / "data",
        )
        received = impostor.received()
    finally:
        impostor.kill()
    assert received == b""
    assert INJECTED not in result.stdout
    assert_one_error_line(result, "another user", f"uid {NOBODY}", "nothing was sent")


@pytest.mark.parametrize("sticky", [False, True])
def test_a_socket_dir_others_can_write_to_is_refused_by_clients(
    scratch: Path, tmp_path: Path, sticky: bool
) -> None:
    scratch.chmod(0o1777 if sticky else 0o777)
    path = scratch / "ltm.sock"
    impostor = Impostor(path, as_nobody=os.getuid() == 0, drop_before_bind=True)
    try:
        with pytest.raises(UntrustedServer, match="writable by group and others"):
            Client(path).health()
        result = call(
            "call",
            "prompt.section",
            '{"cwd": "/srv/app"}',
            "--socket",
            str(path),
            data_dir=tmp_path / "data",
        )
        received = impostor.received()
    finally:
        impostor.kill()
    assert received == b""
    assert INJECTED not in result.stdout
    assert_one_error_line(result, str(scratch), f"chmod 700 {scratch}")


def test_a_socket_dir_others_can_write_to_is_refused_by_the_server(
    scratch: Path, tmp_path: Path
) -> None:
    scratch.chmod(0o777)
    result = call("serve", "--socket", str(scratch / "ltm.sock"), data_dir=tmp_path / "data")
    assert_one_error_line(result, f"chmod 700 {scratch}")
    assert list(scratch.iterdir()) == []


def test_our_private_dir_inside_a_sticky_dir_is_accepted(scratch: Path, tmp_path: Path) -> None:
    scratch.chmod(0o1777)  # like /tmp
    mine = scratch / "mine"
    mine.mkdir(mode=0o700)
    path = mine / "ltm.sock"
    server = subprocess.Popen(
        [CONSOLE_SCRIPT, "--data-dir", str(tmp_path / "data"), "serve", "--socket", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        assert f"on unix:{path}" in server.stdout.readline()
        result = call("call", "health", "--socket", str(path), data_dir=tmp_path / "data")
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["ok"] is True
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=30) == 0
    finally:
        if server.poll() is None:
            server.kill()
        server.wait()
        server.stdout.close()  # type: ignore[union-attr]
        server.stderr.close()  # type: ignore[union-attr]

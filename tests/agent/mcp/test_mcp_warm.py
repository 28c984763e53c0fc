"""The warm MCP start: ``serve`` keeps the SDK imported; ``ltm-desktop mcp`` hands over.

Real processes throughout: ``ltm-desktop serve`` (which starts the warm process by
default), ``ltm-desktop mcp`` fed a real ``initialize`` on stdin, and fake warm sockets
that refuse or are dead, where ``mcp`` must serve by itself.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from ltm_desktop.agent.mcp.warm import start_warm_mcp, warm_socket_for
from ltm_desktop.api.runtime import socket_for
from ltm_desktop.serve import ENV_WARM_MCP
from tests.agent.mcp.test_mcp_server import children_of
from tests.agent.mcp_client import EXECUTABLE, PASSED_ENV
from tests.api.conftest import wait_until

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    },
}
LIST_TOOLS = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def environment(**extra: str) -> dict[str, str]:
    passed = {key: os.environ[key] for key in PASSED_ENV if key in os.environ}
    return {"PATH": os.environ["PATH"], **passed, **extra}


def answer_initialize(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``ltm-desktop mcp`` given initialize and tools/list; its input ends once both are
    answered (an MCP server may drop requests still in flight when its input ends)."""
    command = [str(EXECUTABLE), "--data-dir", str(data_dir), "mcp", *args]
    with subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment(),
    ) as process:
        assert process.stdin is not None
        assert process.stdout is not None
        assert process.stderr is not None
        for message in (INITIALIZE, INITIALIZED, LIST_TOOLS):
            process.stdin.write(json.dumps(message) + "\n")
        process.stdin.flush()
        replies = [process.stdout.readline(), process.stdout.readline()]
        process.stdin.close()
        replies.append(process.stdout.read())
        code = process.wait(60)
        return subprocess.CompletedProcess(command, code, "".join(replies), process.stderr.read())


def assert_served(process: subprocess.CompletedProcess[str]) -> None:
    assert process.returncode == 0, process.stderr
    assert "Traceback" not in process.stderr
    replies = {m["id"]: m for m in map(json.loads, process.stdout.splitlines())}
    assert replies[1]["result"]["serverInfo"]["name"] == "ltm-desktop"
    names = [tool["name"] for tool in replies[2]["result"]["tools"]]
    assert names == ["memory_write", "memory_search"]


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Path, subprocess.Popen[str]]]:
    """A real ``ltm-desktop serve`` on its data dir's own socket, warm MCP on (the default)."""
    data = tmp_path / "data"
    env = environment()
    env.pop(ENV_WARM_MCP, None)
    process = subprocess.Popen(
        [str(EXECUTABLE), "--data-dir", str(data), "serve"],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert process.stdout is not None
    assert "serving" in process.stdout.readline()
    with process:  # closes its pipe at the end
        yield data, process
        if process.poll() is None:
            process.terminate()
            process.wait(30)


def warm_pid(api_socket: Path) -> int:
    """The warm process: the one listening on the warm socket (its child of ``serve``)."""
    listen = warm_socket_for(api_socket)
    assert listen is not None
    wait_until(listen.exists, timeout=30)
    with socket.socket(socket.AF_UNIX) as probe:
        probe.connect(str(listen))
        creds = probe.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
    return int.from_bytes(creds[:4], "little")


@contextlib.contextmanager
def initialized(
    data_dir: Path, *args: str, env: dict[str, str] | None = None
) -> Iterator[subprocess.Popen[str]]:
    """``ltm-desktop [ARGS] mcp`` that has answered ``initialize`` (its input still open)."""
    with subprocess.Popen(
        [str(EXECUTABLE), "--data-dir", str(data_dir), *args, "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env or environment(),
    ) as client:
        assert client.stdin is not None
        assert client.stdout is not None
        client.stdin.write(json.dumps(INITIALIZE) + "\n")
        client.stdin.flush()
        reply = json.loads(client.stdout.readline())
        assert reply["result"]["serverInfo"]["name"] == "ltm-desktop"
        yield client


def ended(client: subprocess.Popen[str]) -> int:
    """End its input: its exit status (an MCP server ends when its client closes stdin)."""
    assert client.stdin is not None
    assert client.stderr is not None
    client.stdin.close()
    code = client.wait(30)
    assert "Traceback" not in client.stderr.read()
    return code


@pytest.mark.slow
def test_serve_keeps_a_warm_process_that_serves_mcp_and_ends_with_it(
    served: tuple[Path, subprocess.Popen[str]],
) -> None:
    data, server = served
    api_socket = socket_for(data)
    zygote = warm_pid(api_socket)
    assert zygote in children_of(server.pid)
    with initialized(data) as client:
        assert len(children_of(zygote)) == 1  # served by a child of the warm process
        assert ended(client) == 0
    wait_until(lambda: not children_of(zygote))
    assert_served(answer_initialize(data))  # and again, with a full exchange
    server.terminate()
    assert server.wait(30) == 0
    wait_until(lambda: not Path(f"/proc/{zygote}").exists() or _is_zombie(zygote))
    assert not (warm_socket_for(api_socket) or Path("/nonexistent")).exists()


def _is_zombie(pid: int) -> bool:
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    return True


@pytest.mark.slow
def test_a_stop_signal_to_mcp_reaches_the_warm_child(
    served: tuple[Path, subprocess.Popen[str]],
) -> None:
    data, _ = served
    zygote = warm_pid(socket_for(data))
    with initialized(data) as client:
        wait_until(lambda: len(children_of(zygote)) == 1)
        client.send_signal(signal.SIGTERM)  # what an MCP client does after closing stdin
        assert client.wait(30) == -signal.SIGTERM  # as a server in its own process would end
        wait_until(lambda: not children_of(zygote))


class FakeWarm:
    """A warm socket that answers every hand-over with ``answer`` (or closes at once)."""

    def __init__(self, path: Path, answer: bytes) -> None:
        self.listener = socket.socket(socket.AF_UNIX)
        self.listener.bind(str(path))
        self.listener.listen()
        self.answer = answer
        self.handovers = 0
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        with contextlib.suppress(OSError):
            while True:
                conn, _ = self.listener.accept()
                with conn:
                    _, fds, _, _ = socket.recv_fds(conn, 65536, 3)
                    for fd in fds:
                        os.close(fd)
                    self.handovers += 1
                    conn.sendall(self.answer)

    def close(self) -> None:
        self.listener.shutdown(socket.SHUT_RDWR)
        self.listener.close()


@pytest.mark.slow
@pytest.mark.parametrize("answer", [b"refused another data dir\n", b"", b"pid x\n"])
def test_a_refused_or_broken_hand_over_serves_in_its_own_process(
    tmp_path: Path, answer: bytes
) -> None:
    data = tmp_path / "data"
    listen = warm_socket_for(socket_for(data))
    assert listen is not None
    fake = FakeWarm(listen, answer)
    try:
        assert_served(answer_initialize(data))
        assert fake.handovers == 1
    finally:
        fake.close()


@pytest.mark.slow
def test_a_dead_warm_socket_is_passed_over(tmp_path: Path) -> None:
    data = tmp_path / "data"
    listen = warm_socket_for(socket_for(data))
    assert listen is not None
    with socket.socket(socket.AF_UNIX) as dead:
        dead.bind(str(listen))  # bound, never listening: connect is refused
        assert_served(answer_initialize(data))


@pytest.mark.slow
def test_a_killed_warm_process_refuses_at_once_and_mcp_starts_cold(
    served: tuple[Path, subprocess.Popen[str]],
) -> None:
    """Its children do not keep its listening socket: a connection is refused, not left
    waiting in a queue nobody reads (with the caller's stdin and stdout inside it)."""
    data, _ = served
    listen = warm_socket_for(socket_for(data))
    assert listen is not None
    zygote = warm_pid(socket_for(data))
    with initialized(data) as session:  # a warm session stays open while its parent dies
        assert len(children_of(zygote)) == 1
        os.kill(zygote, signal.SIGKILL)
        wait_until(lambda: _is_zombie(zygote))
        with socket.socket(socket.AF_UNIX) as probe, pytest.raises(ConnectionRefusedError):
            probe.connect(str(listen))
        assert_served(answer_initialize(data))
        assert ended(session) == 0


@pytest.mark.slow
def test_a_bad_hand_over_leaves_the_warm_process_serving(
    served: tuple[Path, subprocess.Popen[str]],
) -> None:
    data, _ = served
    listen = warm_socket_for(socket_for(data))
    assert listen is not None
    zygote = warm_pid(socket_for(data))
    bad = [b"[" * 30000, b'{"v": true}', b"\xff\xfe", b'{"v": 1, "data_dir": "/elsewhere"}']
    with open(os.devnull, "rb") as null:
        for message in bad:
            with socket.socket(socket.AF_UNIX) as conn:
                conn.connect(str(listen))
                socket.send_fds(conn, [message], [null.fileno()] * 3)
                assert conn.recv(100).startswith(b"refused ")
        with socket.socket(socket.AF_UNIX) as silent:
            silent.connect(str(listen))  # says nothing: dropped after a second
            assert silent.recv(100).startswith(b"refused ")
    assert Path(f"/proc/{zygote}").exists()
    assert not _is_zombie(zygote)
    assert_served(answer_initialize(data))


@pytest.mark.slow
def test_the_warm_process_removes_its_socket_only_while_it_is_its_own(tmp_path: Path) -> None:
    """A server restarting may have its new warm process in place before the old one ends."""
    listen = tmp_path / "w.mcp"
    zygote = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ltm_desktop.agent.mcp.zygote",
            "--listen",
            str(listen),
            "--api-socket",
            str(tmp_path / "api.sock"),
            "--data-dir",
            str(tmp_path / "data"),
        ],
        stdin=subprocess.PIPE,
    )
    assert zygote.stdin is not None
    wait_until(listen.exists, timeout=30)
    listen.unlink()
    with socket.socket(socket.AF_UNIX) as successor:
        successor.bind(str(listen))
        zygote.stdin.close()  # the server stops it
        assert zygote.wait(30) == 0
        assert listen.exists()
    zygote = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ltm_desktop.agent.mcp.zygote",
            "--listen",
            str(listen),
            "--api-socket",
            str(tmp_path / "api.sock"),
            "--data-dir",
            str(tmp_path / "data"),
        ],
        stdin=subprocess.PIPE,
    )
    assert zygote.stdin is not None
    wait_until(lambda: _accepts(listen), timeout=30)  # it replaced the dead file
    zygote.stdin.close()
    assert zygote.wait(30) == 0
    assert not listen.exists()  # its own: removed


def _accepts(path: Path) -> bool:
    with socket.socket(socket.AF_UNIX) as probe:
        try:
            probe.connect(str(path))
        except OSError:
            return False
    return True


def test_a_frozen_bundle_starts_no_warm_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert start_warm_mcp(tmp_path, None, tmp_path / "api.sock") is None
    assert not (tmp_path / "api.sock.mcp").exists()


@pytest.mark.slow
def test_a_config_of_its_own_is_never_handed_over(
    served: tuple[Path, subprocess.Popen[str]], tmp_path: Path
) -> None:
    data, _ = served
    zygote = warm_pid(socket_for(data))
    config = tmp_path / "own.toml"
    config.write_text("[memory]\nenabled = true\n", encoding="utf-8")
    with initialized(data, "--config", str(config)) as client:
        assert children_of(zygote) == []  # served by itself, reading its own config
        assert ended(client) == 0


def test_the_servers_own_config_named_explicitly_is_handed_over(
    served: tuple[Path, subprocess.Popen[str]],
) -> None:
    data, _ = served
    zygote = warm_pid(socket_for(data))
    same = os.environ["LTM_DESKTOP_CONFIG"]  # what serve read (tests/conftest.py sets it)
    without = {k: v for k, v in environment().items() if k != "LTM_DESKTOP_CONFIG"}
    with initialized(data, "--config", same, env=without) as client:
        assert len(children_of(zygote)) == 1
        assert ended(client) == 0


def test_a_warm_socket_too_long_beside_the_api_socket_gets_a_short_name_in_its_folder() -> None:
    """A long runtime folder (a deep home) must not cost the warm start."""
    folder = Path("/run/user/1000") / ("d" * 58)
    api_socket = folder / "ltm-0123456789.sock"  # 99 bytes: the API's socket still fits
    warm = warm_socket_for(api_socket)
    assert warm is not None
    assert warm.parent == folder
    assert len(os.fsencode(warm)) + len(".4194304") <= 104
    assert warm_socket_for(api_socket) == warm  # the server and the client agree
    assert warm_socket_for(folder / "ltm-9876543210.sock") != warm
    assert warm_socket_for(Path("/run") / ("d" * 100) / "ltm.sock") is None
    short = Path("/run/user/1000/ltm.sock")
    assert warm_socket_for(short) == Path("/run/user/1000/ltm.sock.mcp")

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
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from ltm_desktop.agent.mcp_warm import warm_socket_for
from ltm_desktop.api.runtime import socket_for
from ltm_desktop.serve import ENV_WARM_MCP
from tests.agent.mcp_client import EXECUTABLE, PASSED_ENV
from tests.agent.test_mcp_server import children_of
from tests.api.conftest import wait_until

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "raw", "version": "1"}}}  # fmt: skip
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


def test_serve_keeps_a_warm_process_that_serves_mcp_and_ends_with_it(
    served: tuple[Path, subprocess.Popen[str]],
) -> None:
    data, server = served
    api_socket = socket_for(data)
    zygote = warm_pid(api_socket)
    assert zygote in children_of(server.pid)
    client = subprocess.Popen(
        [str(EXECUTABLE), "--data-dir", str(data), "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment(),
    )
    assert client.stdin is not None
    assert client.stdout is not None
    client.stdin.write(json.dumps(INITIALIZE) + "\n")
    client.stdin.flush()
    reply = json.loads(client.stdout.readline())
    assert reply["result"]["serverInfo"]["name"] == "ltm-desktop"
    serving = children_of(zygote)  # the client is served by a child of the warm process
    assert len(serving) == 1
    client.stdin.close()  # end of input ends the session: exit status 0, child gone
    assert client.wait(30) == 0
    client.stdout.close()
    assert client.stderr is not None
    assert "Traceback" not in client.stderr.read()
    client.stderr.close()
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


def test_a_stop_signal_to_mcp_reaches_the_warm_child(
    served: tuple[Path, subprocess.Popen[str]],
) -> None:
    data, _ = served
    zygote = warm_pid(socket_for(data))
    client = subprocess.Popen(
        [str(EXECUTABLE), "--data-dir", str(data), "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment(),
    )
    assert client.stdin is not None
    assert client.stdout is not None
    client.stdin.write(json.dumps(INITIALIZE) + "\n")
    client.stdin.flush()
    assert "serverInfo" in client.stdout.readline()
    wait_until(lambda: len(children_of(zygote)) == 1)
    client.send_signal(signal.SIGTERM)  # what an MCP client does after closing stdin
    assert client.wait(30) != 0
    wait_until(lambda: not children_of(zygote))
    for stream in (client.stdin, client.stdout, client.stderr):
        if stream is not None:
            stream.close()


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


def test_a_dead_warm_socket_is_passed_over(tmp_path: Path) -> None:
    data = tmp_path / "data"
    listen = warm_socket_for(socket_for(data))
    assert listen is not None
    with socket.socket(socket.AF_UNIX) as dead:
        dead.bind(str(listen))  # bound, never listening: connect is refused
        assert_served(answer_initialize(data))


def test_a_config_of_its_own_is_never_handed_over(
    served: tuple[Path, subprocess.Popen[str]], tmp_path: Path
) -> None:
    data, _ = served
    zygote = warm_pid(socket_for(data))
    config = tmp_path / "own.toml"
    config.write_text("[memory]\nenabled = true\n", encoding="utf-8")
    client = subprocess.Popen(
        [str(EXECUTABLE), "--data-dir", str(data), "--config", str(config), "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=environment(),
    )
    assert client.stdin is not None
    assert client.stdout is not None
    client.stdin.write(json.dumps(INITIALIZE) + "\n")
    client.stdin.flush()
    assert "serverInfo" in client.stdout.readline()
    assert children_of(zygote) == []  # served by itself, reading its own config
    client.stdin.close()
    assert client.wait(30) == 0
    client.stdout.close()

"""Starting, refusing, stopping: sockets, locks, permissions, TCP auth, signals, crashes."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import platformdirs
import pytest

from ltm_desktop.api import runtime
from ltm_desktop.api.client import Client, Unauthorized
from ltm_desktop.api.runtime import EndpointError, parse_tcp
from ltm_desktop.api.server import ServerOptions
from ltm_desktop.api.server_thread import ServerThread
from ltm_desktop.core.search import backfill
from ltm_desktop.core.service import MemoryService
from tests.api.conftest import RawConnection, ServerFactory, wait_until
from tests.conftest import ProcessEnv, ServiceFactory, make_draft

# The server's tests run on SQLite, PostgreSQL and the in-memory double; a served process
# (the console script) runs on SQLite and PostgreSQL (process_env), never on the double.
pytestmark = pytest.mark.every_backend


def test_socket_is_private(server: ServerThread, socket_path: Path) -> None:
    assert stat.S_IMODE(socket_path.stat().st_mode) == 0o600


def test_runtime_dir_is_private(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "run").mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "run"))
    path = runtime.runtime_dir()
    assert path == tmp_path / "run" / "ltm-desktop"
    assert stat.S_IMODE(path.stat().st_mode) == 0o700


def test_unsafe_runtime_dir_falls_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    unsafe = tmp_path / "shared" / "ltm-desktop"
    unsafe.mkdir(parents=True)
    unsafe.chmod(0o777)
    monkeypatch.setattr(platformdirs, "user_runtime_dir", lambda *a, **k: str(unsafe))
    monkeypatch.setattr(tempfile, "gettempdir", lambda: str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    path = runtime.runtime_dir()
    assert path == tmp_path / "tmp" / f"ltm-desktop-{os.getuid()}"
    assert stat.S_IMODE(path.stat().st_mode) == 0o700
    assert stat.S_IMODE(unsafe.stat().st_mode) == 0o777  # not "fixed" behind the owner's back


def test_stale_socket_is_replaced(start_server: ServerFactory, short_dir: Path) -> None:
    path = short_dir / "stale.sock"
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(path))
    dead.close()  # the file stays, nobody listens: what a crashed server leaves
    start_server(socket_path=path)
    with Client(path) as client:
        assert client.health()["ok"] is True


def test_live_socket_is_never_stolen(
    server: ServerThread, socket_path: Path, make_service: ServiceFactory, tmp_path: Path
) -> None:
    other_service = make_service(tmp_path / "other-data")
    rival = ServerThread(other_service, other_service.paths.data_dir, ServerOptions(socket_path))
    assert not rival.start()
    assert rival.error is not None
    assert "already" in rival.error
    rival.stop()
    with Client(socket_path) as client:
        assert client.health()["ok"] is True


def test_second_server_on_the_same_data_dir_is_refused(
    server: ServerThread, service: MemoryService, short_dir: Path
) -> None:
    rival = ServerThread(service, service.paths.data_dir, ServerOptions(short_dir / "b.sock"))
    assert not rival.start()
    assert rival.error is not None
    assert "data dir" in rival.error
    rival.stop()
    assert not (short_dir / "b.sock").exists()


def test_a_file_in_the_way_is_left_alone(service: MemoryService, short_dir: Path) -> None:
    path = short_dir / "notes.txt"
    path.write_text("precious")
    thread = ServerThread(service, service.paths.data_dir, ServerOptions(path))
    assert not thread.start()
    assert "not a socket" in (thread.error or "")
    thread.stop()
    assert path.read_text() == "precious"


def test_socket_path_too_long_is_a_clear_error(service: MemoryService, short_dir: Path) -> None:
    thread = ServerThread(service, service.paths.data_dir, ServerOptions(short_dir / ("x" * 120)))
    assert not thread.start()
    assert "too long" in (thread.error or "")
    thread.stop()


@pytest.mark.parametrize(
    "bad",
    ["0.0.0.0:9000", "192.168.1.5:80", "example.com:80", "127.0.0.1", "127.0.0.1:x", "::1:99999"],
)
def test_tcp_accepts_loopback_only(bad: str) -> None:
    with pytest.raises(EndpointError):
        parse_tcp(bad)


def test_tcp_loopback_parsing() -> None:
    assert parse_tcp("127.0.0.1:0") == ("127.0.0.1", 0)
    assert parse_tcp("localhost:8123") == ("127.0.0.1", 8123)
    assert parse_tcp("[::1]:8123") == ("::1", 8123)


def test_tcp_requires_auth(start_server: ServerFactory, short_dir: Path) -> None:
    server = start_server(socket_path=short_dir / "t.sock", tcp=("127.0.0.1", 0))
    endpoint = server.server.endpoint
    assert endpoint is not None
    assert endpoint.tcp is not None
    token_file = runtime.runtime_dir() / f"tcp-{endpoint.tcp[1]}.token"
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    raw = RawConnection(endpoint.tcp)
    try:
        for method in ("health", "memory.list", "hello"):
            reply = raw.request({"jsonrpc": "2.0", "id": 1, "method": method, "params": {}})
            assert reply["error"]["code"] == -32002, method
        wrong = raw.request(
            {"jsonrpc": "2.0", "id": 2, "method": "auth", "params": {"token": "guess"}}
        )
        assert wrong["error"]["code"] == -32002
        token = token_file.read_text()
        ok = raw.request({"jsonrpc": "2.0", "id": 3, "method": "auth", "params": {"token": token}})
        assert ok["result"] == {"ok": True, "required": True}
        assert raw.request({"jsonrpc": "2.0", "id": 4, "method": "health"})["result"]["ok"] is True
    finally:
        raw.close()
    address = f"{endpoint.tcp[0]}:{endpoint.tcp[1]}"
    with Client(tcp=address) as client:  # finds the token file by itself
        assert client.health()["ok"] is True
    with pytest.raises(Unauthorized), Client(tcp=address, token="nope") as client:
        client.health()
    server.stop()
    assert not token_file.exists()


def test_unix_clients_from_the_same_user_need_no_auth(client: Client) -> None:
    assert client.health()["ok"] is True


def reap(process: subprocess.Popen[str]) -> None:
    """Kill the server if a test failed before stopping it, and close its pipes."""
    if process.poll() is None:
        process.kill()
    process.wait()
    process.stdout.close()  # type: ignore[union-attr]
    process.stderr.close()  # type: ignore[union-attr]


def serve(
    data_dir: Path, sock: Path, *extra: str, env: dict[str, str] | None = None
) -> subprocess.Popen[str]:
    """``ltm-desktop serve`` on the data dir; ``env``: a process_env's (the store's URL)."""
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ltm_desktop",
            "--data-dir",
            str(data_dir),
            "serve",
            "--socket",
            str(sock),
            *extra,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_serve_prints_its_endpoint_and_exits_cleanly(
    tmp_path: Path, short_dir: Path, signum: int, process_env: ProcessEnv
) -> None:
    sock = short_dir / "serve.sock"
    process = serve(tmp_path / "data", sock, env=process_env(tmp_path / "data"))
    try:
        assert process.stdout is not None
        ready = process.stdout.readline()
        assert f"on unix:{sock}" in ready
        with Client(sock) as client:
            client.memory_add("served fact", cwd="/srv/app")
        process.send_signal(signum)
        assert process.wait(timeout=30) == 0
    finally:
        reap(process)
    assert not sock.exists()


def test_second_serve_exits_non_zero(
    tmp_path: Path, short_dir: Path, process_env: ProcessEnv
) -> None:
    env = process_env(tmp_path / "data")
    first = serve(tmp_path / "data", short_dir / "one.sock", env=env)
    try:
        assert first.stdout is not None
        assert "serving" in first.stdout.readline()
        second = serve(tmp_path / "data", short_dir / "two.sock", env=env)
        out, err = second.communicate(timeout=60)
        assert second.returncode != 0
        assert "already running" in err
        assert "Traceback" not in err
    finally:
        first.send_signal(signal.SIGTERM)
        first.wait(timeout=30)
        first.stdout.close()  # type: ignore[union-attr]
        first.stderr.close()  # type: ignore[union-attr]


@pytest.mark.slow
def test_sigkill_loses_no_acknowledged_write(
    tmp_path: Path, short_dir: Path, make_service: ServiceFactory, process_env: ProcessEnv
) -> None:
    sock = short_dir / "kill.sock"
    process = serve(tmp_path / "data", sock, env=process_env(tmp_path / "data"))
    acknowledged: list[str] = []
    assert process.stdout is not None
    assert "serving" in process.stdout.readline()

    def writer() -> None:
        try:
            with Client(sock, client_name="doomed") as client:
                for i in range(10_000):
                    result = client.memory_add(f"durable fact {i} token{i}k", cwd="/srv/app")
                    acknowledged.append(result["memory"]["id"])
        except Exception:  # the server dies under us: that is the point
            return

    thread = threading.Thread(target=writer)
    thread.start()
    wait_until(lambda: len(acknowledged) >= 150 or not thread.is_alive(), timeout=60)
    assert len(acknowledged) >= 150
    os.kill(process.pid, signal.SIGKILL)
    thread.join()
    process.wait()
    process.stdout.close()
    process.stderr.close()  # type: ignore[union-attr]
    service = make_service(tmp_path / "data")
    for memory_id in acknowledged:
        assert service.get(memory_id).content.startswith("durable fact")


def test_the_server_expires_memories_while_it_runs(
    start_server: ServerFactory, service: MemoryService, short_dir: Path, clock: object
) -> None:
    project = service.resolve_scope(cwd="/srv/app", register=True)
    memory = service.add(project, make_draft("temporary credentials", ttl_days=1), "a").memory
    clock.advance(days=2)  # type: ignore[attr-defined]
    start_server(socket_path=short_dir / "h.sock", housekeeping_interval=0.05)
    wait_until(lambda: service.get(memory.id).disabled)
    assert service.history.memory(memory.id)[-1].action.value == "expired"


def test_unauthenticated_tcp_peers_are_dropped_quickly(
    start_server: ServerFactory, short_dir: Path
) -> None:
    server = start_server(socket_path=short_dir / "a.sock", tcp=("127.0.0.1", 0), auth_timeout=0.2)
    assert server.server.endpoint is not None
    address = server.server.endpoint.tcp
    assert address is not None
    squatter = RawConnection(address)
    try:
        assert squatter.closed()  # never authenticated: closed after auth_timeout
    finally:
        squatter.close()
    with Client(short_dir / "a.sock") as owner:  # the owner's Unix client is unaffected
        assert owner.health()["ok"] is True


def test_serve_with_worker_processes(
    tmp_path: Path, short_dir: Path, process_env: ProcessEnv
) -> None:
    sock = short_dir / "w.sock"
    process = serve(tmp_path / "data", sock, "--workers", "2", env=process_env(tmp_path / "data"))
    try:
        assert process.stdout is not None
        assert "with 2 worker processes" in process.stdout.readline()
        with Client(sock, client_name="watcher") as watcher:
            watcher.events_subscribe()
            written = set()
            for i in range(6):  # separate connections land on either worker
                with Client(sock, client_name=f"agent{i}") as agent:
                    written.add(
                        agent.memory_add(f"fact {i} from agent zz{i}q", cwd="/srv/w")["memory"][
                            "id"
                        ]
                    )
            seen: set[str] = set()
            while seen != written:
                event = watcher.next_event(timeout=10)
                assert event is not None, f"missing events for {written - seen}"
                seen.add(event["params"]["id"])
            assert len(watcher.memory_search("fact from agent", cwd="/srv/w", limit=10)) == 6
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
    finally:
        reap(process)
    assert not sock.exists()


@pytest.mark.slow
def test_a_signal_right_after_the_ready_line_stops_every_worker(
    tmp_path: Path, short_dir: Path
) -> None:
    """The parent's handlers are in place before it forks: no worker is left serving (and
    holding the pipes) because the signal came before the parent began to supervise."""
    sock = short_dir / "early.sock"
    for attempt in range(3):
        process = serve(tmp_path / "data", sock, "--workers", "2")
        try:
            assert process.stdout is not None
            assert "with 2 worker processes" in process.stdout.readline()
            process.send_signal(signal.SIGTERM)  # at once
            out, _ = process.communicate(timeout=30)  # EOF: no worker holds stdout
            assert process.returncode == 0, attempt
        finally:
            reap(process)
        assert not sock.exists()


@pytest.mark.skipif(
    not Path("/proc/self/task").exists(), reason="finds the workers via Linux /proc"
)
def test_a_dying_worker_stops_the_server_with_an_error(tmp_path: Path, short_dir: Path) -> None:
    sock = short_dir / "d.sock"
    process = serve(tmp_path / "data", sock, "--workers", "2")
    try:
        assert process.stdout is not None
        assert "worker processes" in process.stdout.readline()
        children = Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text().split()
        assert len(children) == 2
        os.kill(int(children[0]), signal.SIGKILL)
        assert process.wait(timeout=30) == 1
        assert process.stderr is not None
        err = process.stderr.read()
    finally:
        reap(process)
    assert not sock.exists()
    assert "Traceback" not in err
    assert err.splitlines() == [
        f"ltm-desktop: error: worker process {children[0]} was killed by signal 9 (SIGKILL); "
        "stopping the server"
    ]


@pytest.mark.sqlite_only  # removes the data dir, which holds SQLite's database
def test_health_answers_not_ok_long_after_the_database_was_removed(
    service: MemoryService, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Health is what a user asks when writes fail: it must answer then, also once the
    semantic index's counts (cached for a while) are due to be read again."""
    client.memory_add("kept while the data dir was there", cwd="/srv/app")
    counted = client.health()["semantic_search"]
    monkeypatch.setattr(backfill, "COUNT_SECONDS", 0.0)  # every health counts anew
    shutil.rmtree(service.paths.data_dir)

    health = client.health()

    assert health["ok"] is False
    assert any("removed" in problem for problem in health["problems"])
    assert health["semantic_search"]["memories"] == counted["memories"]  # the last known

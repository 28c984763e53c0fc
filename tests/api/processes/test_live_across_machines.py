"""Live changes across machines with real processes: two ``ltm-desktop serve`` on two data
dirs (two "machines") and one PostgreSQL database. A write through A's socket reaches an
``events.subscribe`` client of B, in the shape B's own writes have, and B's MEMORY.md
for the project; when B's listener loses its connection while A writes, the catch-up
after it reconnects delivers what it missed, exactly once and in order. On SQLite, a
server's subscriber hears the writes another process makes on its data dir."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from ltm_desktop.api.client import Client
from ltm_desktop.core.settings.launch import ENV_DATABASE_URL
from ltm_desktop.postgres.listen import LISTENER_NAME
from tests.api.conftest import wait_until
from tests.api.test_lifecycle import reap, serve
from tests.pg_databases import PgDatabases, to_url

pytestmark = pytest.mark.slow
TIMEOUT = 60.0


def _env(url: str | None) -> dict[str, str]:
    env = dict(os.environ)
    env.pop(ENV_DATABASE_URL, None)
    env["LTM_DESKTOP_MCP_WARM"] = "0"  # no warm MCP companion: not what is tested
    if url is not None:
        env[ENV_DATABASE_URL] = to_url(url)
    return env


def _ready(process: subprocess.Popen[str]) -> None:
    assert process.stdout is not None
    line = process.stdout.readline()
    assert "serving" in line, (line, process.stderr and process.stderr.read())


def _stop(process: subprocess.Popen[str]) -> None:
    process.terminate()
    assert process.wait(timeout=TIMEOUT) == 0


@pytest.fixture
def shared_url(pg_databases: PgDatabases) -> Iterator[str]:
    """One database for both machines (released after both servers stopped)."""
    url = pg_databases.take()
    yield url
    pg_databases.release(url)


@pytest.fixture
def machines(
    tmp_path: Path, short_dir: Path, shared_url: str
) -> Iterator[tuple[tuple[Path, Path], tuple[Path, Path]]]:
    """Two running servers on one database: ((data A, socket A), (data B, socket B))."""
    ends = ((tmp_path / "laptop", short_dir / "a.sock"), (tmp_path / "desk", short_dir / "b.sock"))
    processes = [serve(data, sock, env=_env(shared_url)) for data, sock in ends]
    try:
        for process in processes:
            _ready(process)
        yield ends
        for process in processes:
            _stop(process)
    finally:
        for process in processes:
            reap(process)


def _events(watcher: Client, until_id: str) -> list[dict[str, Any]]:
    """The notifications received up to and including one about ``until_id``."""
    received: list[dict[str, Any]] = []
    while not received or received[-1]["id"] != until_id:
        event = watcher.next_event(timeout=TIMEOUT)
        assert event is not None, f"no event for {until_id} after {received}"
        received.append(event["params"])
    return received


def _memory_md(data_dir: Path, project_id: str) -> str:
    path = data_dir / "precis" / project_id / "MEMORY.md"
    return path.read_text(encoding="utf-8") if path.exists() else ""


def test_a_write_on_a_reaches_bs_subscriber_and_bs_memory_md(
    machines: tuple[tuple[Path, Path], tuple[Path, Path]],
) -> None:
    (_, sock_a), (data_b, sock_b) = machines
    with Client(sock_b, client_name="watcher") as watcher:
        watcher.events_subscribe()
        with Client(sock_a, client_name="laptop-agent") as agent:
            added = agent.memory_add("checkout totals are in cents qlv1", cwd="/srv/shop")
        memory = added["memory"]
        [event] = _events(watcher, memory["id"])
        assert event == {
            "id": memory["id"],
            "project_id": memory["project_id"],
            "action": "created",
            "actor": "laptop-agent",
        }
        with Client(sock_b, client_name="desk-agent") as local:  # B's own: the same shape
            own = local.memory_add("refunds go through the ledger qlv2", cwd="/srv/shop")
        [mine] = _events(watcher, own["memory"]["id"])
        assert mine.keys() == event.keys()
        assert mine["actor"] == "desk-agent"
    wait_until(lambda: "totals are in cents qlv1" in _memory_md(data_b, memory["project_id"]))


def test_writes_on_both_machines_at_once_reach_bs_subscriber_once_each(
    machines: tuple[tuple[Path, Path], tuple[Path, Path]],
) -> None:
    """B's own writes and A's, made at the same time, interleave in the audit history:
    the subscriber hears each once."""
    (_, sock_a), (_, sock_b) = machines
    written: dict[str, list[str]] = {"a": [], "b": []}

    def write(name: str, sock: Path) -> None:
        with Client(sock, client_name=f"agent-{name}") as agent:
            for i in range(15):
                text = f"machine {name} fact {i} qlx{name}{i}q"
                written[name].append(agent.memory_add(text, cwd="/srv/shop")["memory"]["id"])

    with Client(sock_b, client_name="watcher") as watcher:
        watcher.events_subscribe()
        threads = [
            threading.Thread(target=write, args=(name, sock))
            for name, sock in (("a", sock_a), ("b", sock_b))
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(TIMEOUT)
        expected = set(written["a"]) | set(written["b"])
        assert len(expected) == 30
        received: list[str] = []
        while not expected <= set(received):
            event = watcher.next_event(timeout=TIMEOUT)
            assert event is not None, expected - set(received)
            received.append(event["params"]["id"])
        with Client(sock_a, client_name="sentinel") as agent:  # anything doubled came before it
            last = agent.memory_add("the last word qlx9", cwd="/srv/shop")["memory"]["id"]
        received += [e["id"] for e in _events(watcher, last)]
    assert sorted(received) == sorted([*expected, last])  # each once
    for name in ("a", "b"):  # each machine's in the order it wrote them
        assert [i for i in received if i in written[name]] == written[name]


def _listeners(conn: psycopg.Connection[Any]) -> list[int]:
    rows = conn.execute(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
        "AND application_name = %s",
        (LISTENER_NAME,),
    ).fetchall()
    return [int(row[0]) for row in rows]


def test_writes_made_while_bs_listener_was_away_arrive_once_after_it_reconnects(
    machines: tuple[tuple[Path, Path], tuple[Path, Path]], shared_url: str, pg_server_url: str
) -> None:
    (_, sock_a), (_, sock_b) = machines
    with (
        psycopg.connect(pg_server_url, autocommit=True) as server,  # not the database's
        psycopg.connect(shared_url, autocommit=True) as admin,
        Client(sock_b, client_name="watcher") as watcher,
        Client(sock_a, client_name="laptop-agent") as agent,
    ):
        name = admin.info.dbname
        watcher.events_subscribe()
        written = [agent.memory_add("before the outage qlv3", cwd="/srv/shop")["memory"]["id"]]
        received = _events(watcher, written[-1])
        wait_until(lambda: len(_listeners(admin)) == 2, TIMEOUT)  # A's and B's
        try:
            # no new connections (as when the server is away), then end the listeners'
            server.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
            for pid in _listeners(admin):
                admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
            wait_until(lambda: not _listeners(admin), TIMEOUT)
            for text in ("during the outage qlv4", "still during it qlv5"):
                written.append(agent.memory_add(text, cwd="/srv/shop")["memory"]["id"])
        finally:
            server.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
        received += _events(watcher, written[-1])  # the catch-up, once B listens again
        wait_until(lambda: len(_listeners(admin)) == 2, TIMEOUT)
        written.append(agent.memory_add("after the outage qlv6", cwd="/srv/shop")["memory"]["id"])
        received += _events(watcher, written[-1])
    assert [(e["id"], e["action"]) for e in received] == [(i, "created") for i in written]


def test_on_sqlite_a_subscriber_hears_another_process_on_the_data_dir(
    tmp_path: Path, short_dir: Path
) -> None:
    data, sock = tmp_path / "data", short_dir / "s.sock"
    server = serve(data, sock, env=_env(None))
    try:
        _ready(server)
        with Client(sock, client_name="watcher") as watcher:
            watcher.events_subscribe()
            script = (
                "import sys\n"
                "from ltm_desktop.launching import open_service\n"
                "from ltm_desktop.core.records import MemoryDraft\n"
                "service = open_service(sys.argv[1]).service\n"
                "try:\n"
                "    scope = service.resolve_scope(cwd='/srv/shop', register=True)\n"
                "    added = service.add(scope, MemoryDraft('written by a script qlv7'), 'script')\n"
                "    print(added.memory.id)\n"
                "finally:\n"
                "    service.close()\n"
            )
            other = subprocess.run(
                [sys.executable, "-c", script, str(data)],
                capture_output=True,
                text=True,
                timeout=TIMEOUT,
                env=_env(None),
                check=True,
            )
            memory_id = other.stdout.strip().splitlines()[-1]
            [event] = _events(watcher, memory_id)
            assert (event["action"], event["actor"]) == ("created", "script")
        _stop(server)
    finally:
        reap(server)

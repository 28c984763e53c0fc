"""A real outage: ``ltm-desktop serve`` on a PostgreSQL server of the test's own, which
the test stops and starts.

While it is down, agents' writes through the real socket (and one through the console
script) are acknowledged as queued, reads answer from the read cache marked stale, the
server restarts offline with its outbox intact, and ``health`` and ``status`` say
"offline — N changes waiting". Once PostgreSQL is back, every queued write is in the
database in order, found from a second data dir; an edit of a memory that the second data
dir changed meanwhile is an Inbox proposal, not applied over that change; and the
database password is in no output and no file of either data dir.
"""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest

from ltm_desktop.api.client import Client
from ltm_desktop.launching import open_service
from scripts.pg_cluster import Cluster
from tests.api.conftest import wait_until
from tests.api.test_lifecycle import reap, serve
from tests.console import CONSOLE_SCRIPT

pytestmark = pytest.mark.slow

CWD = "/srv/shop"
OFFLINE_NOTES = [
    "Checkout totals are rounded half-even since the tax fix",
    "The staging database is refreshed from production every Sunday night",
    "Use the feature flag new_cart for the redesigned basket page",
    "Payment webhooks retry five times with exponential backoff",
]
WAIT_S = 90.0  # a loaded machine: PostgreSQL's restart and the replay


class Served:
    """One ``serve`` process of data dir A, with everything it printed kept."""

    def __init__(self, data: Path, sock: Path, env: dict[str, str], outputs: list[str]) -> None:
        self.process = serve(data, sock, env=env)
        self.outputs = outputs
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        outputs.append(line)
        assert "serving" in line, line + self._stderr()
        self.client = Client(sock, client_name="laptop-agent", timeout=30)

    def _stderr(self) -> str:
        if self.process.poll() is None:
            self.process.kill()
        return self.process.stderr.read() if self.process.stderr else ""

    def call(self, method: str, **params: Any) -> Any:
        return self.client.call(method, params)

    def outbox(self) -> dict[str, Any]:
        return dict(self.client.health()["outbox"])

    def stop(self) -> None:
        self.client.close()
        self.process.send_signal(signal.SIGTERM)
        out, err = self.process.communicate(timeout=60)
        self.outputs += [out, err]
        assert self.process.returncode == 0, err
        assert "Traceback" not in err
        reap(self.process)


def _mirrored(data: Path, memory_id: str) -> bool:
    db = sqlite3.connect(data / "read_cache.db")
    try:
        return (
            db.execute("SELECT 1 FROM memories WHERE id = ?", (memory_id,)).fetchone() is not None
        )
    finally:
        db.close()


def _console(
    env: dict[str, str], outputs: list[str], *args: str
) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [CONSOLE_SCRIPT, *args], capture_output=True, text=True, env=env, timeout=120, check=False
    )
    outputs += [result.stdout, result.stderr]
    return result


def test_writes_while_postgresql_is_down_are_queued_then_replayed_in_order(
    tmp_path: Path, short_dir: Path, stoppable_pg: Cluster
) -> None:
    url, password = stoppable_pg.url, stoppable_pg.password
    env = {**_base_env(), "LTM_DESKTOP_DATABASE_URL": url}
    data_a, data_b, sock = tmp_path / "laptop", tmp_path / "desktop", short_dir / "a.sock"
    outputs: list[str] = []

    # Online: two memories, mirrored into the laptop's read cache.
    a = Served(data_a, sock, env, outputs)
    try:
        kept = a.call("memory.add", cwd=CWD, content="Release notes live in docs/CHANGES.md")
        gone = a.call("memory.add", cwd=CWD, content="The old CI ran on Jenkins at ci.internal")
        kept_id, gone_id = kept["memory"]["id"], gone["memory"]["id"]
        wait_until(lambda: _mirrored(data_a, kept_id) and _mirrored(data_a, gone_id), WAIT_S)

        # The outage: writes are queued, reads are stale but show them.
        stoppable_pg.halt()
        wait_until(lambda: a.outbox()["offline"], WAIT_S)
        queued_ids = []
        for note in OFFLINE_NOTES[:3]:
            ack = a.call("memory.add", cwd=CWD, content=note)
            assert ack["status"] == "queued", ack
            queued_ids.append(ack["memory"]["id"])
        edit = a.call("memory.update", id=kept_id, content="Release notes live in NEWS.md")
        assert edit["status"] == "queued"
        assert a.call("memory.remove", id=gone_id)["status"] == "queued"
        by_script = _console(
            env, outputs, "call", "memory.add",
            json.dumps({"cwd": CWD, "content": OFFLINE_NOTES[3]}), "--socket", str(sock),
        )  # fmt: skip
        assert by_script.returncode == 0, by_script.stderr
        ack = json.loads(by_script.stdout)
        assert ack["status"] == "queued"
        queued_ids.append(ack["memory"]["id"])

        found = a.call("memory.search", cwd=CWD, query="webhooks retry backoff")
        assert found["stale"] is True
        assert [h["memory"]["id"] for h in found["hits"]][:1] == [queued_ids[3]]
        listed = a.call("memory.list", cwd=CWD)
        assert gone_id not in {m["id"] for m in listed["memories"]}  # its queued removal
        assert a.outbox()["waiting"] == 6
        assert a.outbox()["text"].startswith("offline — 6 changes waiting")
    finally:
        a.stop()

    # Restarted while the server is still down: it starts offline, the outbox intact.
    status = _console(env, outputs, "--data-dir", str(data_a), "status")
    assert status.returncode == 1
    assert "offline — 6 changes waiting" in status.stdout
    a = Served(data_a, sock, env, outputs)
    try:
        assert a.outbox()["offline"]
        assert a.outbox()["waiting"] == 6
        late = a.call(
            "memory.add", cwd=CWD, content="Feature freeze starts two days before release"
        )
        assert late["status"] == "queued"
        queued_ids.append(late["memory"]["id"])
    finally:
        a.stop()

    # Back up; the desktop edits the same memory before the laptop replays.
    stoppable_pg.resume()
    desktop = open_service(data_b, database_url=url).service
    try:
        desktop.update(kept_id, {"content": "Release notes live in the wiki"}, "desktop-person")

        a = Served(data_a, sock, env, outputs)  # replays at its start
        try:
            wait_until(lambda: a.outbox()["waiting"] == 0 and not a.outbox()["offline"], WAIT_S)
            assert a.call("health")["outbox"]["text"] == ""
        finally:
            a.stop()

        stored = [desktop.get(memory_id) for memory_id in queued_ids]  # ids kept
        assert [m.content for m in stored] == [
            *OFFLINE_NOTES,
            "Feature freeze starts two days before release",
        ]
        assert [m.created_at for m in stored] == sorted(m.created_at for m in stored)  # in order
        assert [m.source for m in stored] == [
            *["laptop-agent"] * 3,
            "ltm-desktop-cli",  # ltm-desktop call's client name
            "laptop-agent",
        ]
        assert desktop.get(gone_id).disabled
        assert desktop.get(kept_id).content == "Release notes live in the wiki"  # not overwritten
        proposals = [e.proposal for e in desktop.inbox.entries() if e.proposal is not None]
        assert [p.content for p in proposals] == ["Release notes live in NEWS.md"]
        assert [m.memory_id for m in proposals[0].merges] == [kept_id]
    finally:
        desktop.close()

    _console(env, outputs, "--data-dir", str(data_a), "status")
    assert not any(password in text for text in outputs)
    for data in (data_a, data_b):
        for path in data.rglob("*"):
            if path.is_file():
                assert password.encode() not in path.read_bytes(), path


def _base_env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if k != "LTM_DESKTOP_DATABASE_URL"}


def test_serve_with_workers_queues_while_postgresql_is_down(
    tmp_path: Path, short_dir: Path, stoppable_pg: Cluster
) -> None:
    """``serve --workers 2``: whichever worker takes a write while the server is down
    queues it in the data dir's one outbox; once it answers one worker replays them all."""
    env = {**_base_env(), "LTM_DESKTOP_DATABASE_URL": stoppable_pg.url}
    data, sock = tmp_path / "laptop", short_dir / "w.sock"
    outputs: list[str] = []
    process = serve(data, sock, "--workers", "2", env=env)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        outputs.append(line)
        assert "serving" in line, line
        stoppable_pg.halt()
        acks = []
        for note in OFFLINE_NOTES:  # new connections: the workers take them by turns
            with Client(sock, client_name="laptop-agent", timeout=30) as client:
                wait_until(lambda c=client: _down(c), WAIT_S)  # type: ignore[misc]
                acks.append(client.call("memory.add", {"cwd": CWD, "content": note}))
        assert [a["status"] for a in acks] == ["queued"] * len(OFFLINE_NOTES)
        stoppable_pg.resume()
        with Client(sock, client_name="laptop-agent", timeout=30) as client:
            wait_until(lambda: _all_written(client, acks), WAIT_S)
    except BaseException:
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=60)
        reap(process)
        raise AssertionError(f"serve --workers 2 said: {err}") from None
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=60)
    outputs += [out, err]
    reap(process)
    assert process.returncode == 0, err
    assert "Traceback" not in err
    service = open_service(tmp_path / "check", database_url=stoppable_pg.url).service
    try:
        stored = [service.get(a["memory"]["id"]) for a in acks]  # the ids they were given
    finally:
        service.close()
    assert [m.content for m in stored] == OFFLINE_NOTES
    assert [m.created_at for m in stored] == sorted(m.created_at for m in stored)  # in order


def _down(client: Client) -> bool:
    """This worker knows the server is down (its writes are queued from now on)."""
    return bool(client.health()["outbox"]["offline"])


def _all_written(client: Client, acks: list[dict[str, Any]]) -> bool:
    outbox = client.health()["outbox"]
    if outbox["offline"] or outbox["waiting"]:
        return False
    found = client.call("memory.get", {"id": acks[-1]["memory"]["id"]})
    return "stale" not in found

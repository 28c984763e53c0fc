"""A write is acknowledged only once its commit is on files the server still holds at the
database's path: with the ``-wal`` file deleted while writers are in flight (threads adding
through the socket of a real ``ltm-desktop serve``), every acknowledged memory is in the
database reopened afterwards, and every other write got the error for a replaced database."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import uuid
from pathlib import Path

import pytest

from ltm_desktop.api.client import Client, InternalError
from ltm_desktop.core.records import ListQuery
from ltm_desktop.launching import open_service

LTM = Path(sys.executable).with_name("ltm-desktop")
WRITERS = 6
BEFORE = 60  # acknowledged writes before the WAL goes
ALL = ListQuery(include_disabled=True, include_expired=True, limit=10_000)


@pytest.mark.slow
def test_writes_in_flight_when_the_wal_is_deleted_are_errors_not_lost_acknowledgements(
    tmp_path: Path, short_dir: Path
) -> None:
    data = tmp_path / "data"
    sock = short_dir / "wal.sock"
    server = subprocess.Popen(
        [str(LTM), "--data-dir", str(data), "serve", "--socket", str(sock)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    acknowledged: dict[str, str] = {}  # content -> id
    refused: list[str] = []
    other: list[BaseException] = []
    lock = threading.Lock()
    enough, deleted = threading.Event(), threading.Event()

    def write() -> None:
        with Client(sock) as client:
            while True:
                content = f"note {uuid.uuid4().hex} about deploys"
                try:
                    result = client.memory_add(content, cwd="/srv/app")
                except InternalError as exc:
                    with lock:
                        refused.append(str(exc))
                    if deleted.is_set():
                        return  # refused from now on: done
                    continue
                except BaseException as exc:  # reported by the test, not lost in the thread
                    with lock:
                        other.append(exc)
                    enough.set()
                    return
                with lock:
                    acknowledged[content] = result["memory"]["id"]
                    if len(acknowledged) >= BEFORE:
                        enough.set()

    try:
        assert server.stdout is not None
        assert "serving" in server.stdout.readline()
        threads = [threading.Thread(target=write) for _ in range(WRITERS)]
        for thread in threads:
            thread.start()
        assert enough.wait(timeout=60)
        for suffix in ("-wal", "-shm"):  # while the writers keep adding
            (data / f"ltm.sqlite{suffix}").unlink()
        deleted.set()
        for thread in threads:
            thread.join(timeout=60)
            assert not thread.is_alive()
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    finally:
        if server.poll() is None:
            server.kill()
        server.wait()
        server.stdout.close()  # type: ignore[union-attr]
        server.stderr.close()  # type: ignore[union-attr]

    assert other == []
    assert refused, "no write was refused after the WAL was deleted"
    assert all("removed or replaced" in message for message in refused), refused[:3]
    opened = open_service(data)
    try:
        project = opened.service.resolve_scope(cwd="/srv/app")
        stored = {m.content for m in opened.service.list_memories(project, ALL)}
    finally:
        opened.service.close()
    lost = sorted(set(acknowledged) - stored)
    assert lost == [], f"{len(lost)} of {len(acknowledged)} acknowledged writes were lost"

"""Reading connections: one per living thread, closed once that thread has died."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from ltm_desktop.core.service import MemoryService

pytestmark = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")


def open_descriptors(path: Path) -> int:
    """How many file descriptors of this process have ``path`` open."""
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{fd}") == str(path):
                count += 1
        except OSError:  # closed between listing and reading
            pass
    return count


def read_on_a_new_thread(service: MemoryService, project: str) -> None:
    failures: list[BaseException] = []

    def read() -> None:
        try:
            service.count_memories(project)
        except BaseException as exc:  # reported by the test, not lost with the thread
            failures.append(exc)

    thread = threading.Thread(target=read)
    thread.start()
    thread.join()
    assert failures == []


def test_a_dead_threads_connection_is_closed(service: MemoryService, project: str) -> None:
    """Thread pools (anyio's, a ThreadPoolExecutor's) retire idle threads and start new
    ones; each new one reads on a connection of its own, and a retired one's must not stay
    open until the store closes (review finding: descriptors grew without bound). SQLite
    may keep a closed connection's descriptor for the next one to reuse, so the count
    stays level rather than falling."""
    db = service.paths.db_path
    read_on_a_new_thread(service, project)
    before = open_descriptors(db)
    for _ in range(30):
        read_on_a_new_thread(service, project)
    assert open_descriptors(db) <= before


def test_a_living_threads_connection_stays_open(service: MemoryService, project: str) -> None:
    """Only dead threads lose theirs: one that waits between reads keeps reading."""
    started, resume = threading.Barrier(6), threading.Event()
    counts: list[int] = []
    failures: list[BaseException] = []

    def read_wait_read() -> None:
        try:
            service.count_memories(project)
            started.wait(timeout=30)
            resume.wait(timeout=30)
            counts.append(service.count_memories(project))
        except BaseException as exc:  # a closed connection would end up here
            failures.append(exc)

    threads = [threading.Thread(target=read_wait_read) for _ in range(5)]
    for thread in threads:
        thread.start()
    try:
        started.wait(timeout=30)
        for _ in range(3):  # each opens a connection, closing the dead threads' ones
            read_on_a_new_thread(service, project)
    finally:
        resume.set()
        for thread in threads:
            thread.join()
    assert failures == []
    assert counts == [0] * 5

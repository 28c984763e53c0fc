"""Concurrent writers and readers: nothing lost, nothing duplicated, no 'database is locked'."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from ltm_desktop.core.records import AddStatus, ListQuery
from ltm_desktop.core.service import MemoryService
from tests.conftest import ServiceFactory, make_draft

pytestmark = pytest.mark.every_backend


def unique_text(writer: str, i: int) -> str:
    return f"{writer} wrote entry{i} mentioning token{writer}{i} and marker{i}x{writer}"


def run_threads(*targets: Callable[[], object]) -> list[BaseException]:
    errors: list[BaseException] = []

    def guard(target: Callable[[], None]) -> None:
        try:
            target()
        except BaseException as exc:  # collected and asserted on by the caller
            errors.append(exc)

    threads = [threading.Thread(target=guard, args=(t,)) for t in targets]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


@pytest.mark.slow
def test_two_writer_threads_lose_nothing(service: MemoryService, project: str) -> None:
    def writer(name: str) -> Callable[[], object]:
        return lambda: [
            service.add(project, make_draft(unique_text(name, i)), name) for i in range(200)
        ]

    assert run_threads(writer("alpha"), writer("beta")) == []
    memories = service.list_memories(project, ListQuery(limit=1000))
    assert len(memories) == 400
    assert len({m.content for m in memories}) == 400


def test_racing_identical_adds_deduplicate(service: MemoryService, project: str) -> None:
    statuses: list[AddStatus] = []
    lock = threading.Lock()

    def writer() -> None:
        for i in range(100):
            result = service.add(project, make_draft(f"shared fact {i} zq{i}w"), "racer")
            with lock:
                statuses.append(result.status)

    assert run_threads(writer, writer) == []
    assert service.count_memories(project) == 100
    assert statuses.count(AddStatus.CREATED) == 100
    assert statuses.count(AddStatus.DEDUPLICATED) == 100
    assert all(m.use_count == 1 for m in service.list_memories(project, ListQuery(limit=200)))


def test_readers_run_while_writing(service: MemoryService, project: str) -> None:
    stop = threading.Event()

    def write() -> None:
        try:
            for i in range(150):
                service.add(project, make_draft(unique_text("w", i)), "w")
        finally:
            stop.set()

    def read() -> None:
        while not stop.is_set():
            service.search.query(project, "entry mentioning", limit=10, reinforce=True)
            service.list_memories(project, ListQuery(limit=50))
            service.precis(project)

    assert run_threads(write, read, read) == []
    assert service.count_memories(project) == 150


def test_two_stores_on_one_file_write_concurrently(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    first, second = make_service(), make_service()
    project = first.resolve_scope(cwd="/srv/shared", register=True)

    def writer(service: MemoryService, name: str) -> Callable[[], object]:
        return lambda: [
            service.add(project, make_draft(unique_text(name, i)), name) for i in range(150)
        ]

    assert run_threads(writer(first, "one"), writer(second, "two")) == []
    assert first.count_memories(project) == second.count_memories(project) == 300


WRITER_SCRIPT = """
import sys
from ltm_desktop.launching import open_service
opened = open_service(sys.argv[1], sys.argv[1] + "/none.toml")
service = opened.service
from ltm_desktop.core.records import MemoryDraft
for i in range(150):
    service.add(sys.argv[2], MemoryDraft(f"process wrote entry{i} token{i}p marker{i}q"), "proc")
service.close()
"""


@pytest.mark.slow
@pytest.mark.sqlite_only
def test_another_process_writes_the_same_database(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    service = make_service(tmp_path / "shared")
    project = service.resolve_scope(cwd="/srv/shared", register=True)
    child = subprocess.Popen(
        [sys.executable, "-c", WRITER_SCRIPT, str(tmp_path / "shared"), project]
    )
    for i in range(150):
        service.add(project, make_draft(unique_text("main", i)), "main")
    assert child.wait(timeout=120) == 0
    assert service.count_memories(project) == 300
    sources = {m.source for m in service.list_memories(project, ListQuery(limit=500))}
    assert sources == {"main", "proc"}


@pytest.mark.sqlite_only
def test_a_failed_add_does_not_break_later_adds(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    """A rollback also drops the temp tables the write created (review finding)."""
    import sqlite3

    import pytest

    from ltm_desktop.core.errors import LtmError

    first = make_service(tmp_path / "d")
    project = first.resolve_scope(cwd="/srv/app", register=True)
    first.add(project, make_draft("first memory about deployment pipelines"), "a")
    first.close()
    conn = sqlite3.connect(tmp_path / "d" / "ltm.sqlite")
    conn.execute(
        "CREATE TRIGGER boom BEFORE INSERT ON memories WHEN NEW.content LIKE '%boom%' "
        "BEGIN SELECT RAISE(ABORT, 'simulated disk full'); END"
    )
    conn.commit()
    conn.close()
    service = make_service(tmp_path / "d")
    with pytest.raises((LtmError, sqlite3.DatabaseError)):
        service.add(project, make_draft("boom this add fails"), "a")
    for text in ("a perfectly normal memory afterwards", "and another one"):
        assert service.add(project, make_draft(text), "a").status.value == "created"


@pytest.mark.slow
def test_searching_a_project_while_its_first_memory_is_added(service: MemoryService) -> None:
    """Readers never see a project or table that is not committed yet (review finding)."""
    stop = threading.Event()

    def search() -> None:
        while not stop.is_set():
            for n in range(200):
                service.search.query(f"proj_{n:016x}", "memory about widgets", limit=5)

    def write() -> None:
        try:
            for n in range(200):
                service.add(f"proj_{n:016x}", make_draft(f"first memory about widgets {n}"), "a")
        finally:
            stop.set()

    assert run_threads(write, search, search) == []

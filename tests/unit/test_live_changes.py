"""Live changes across machines, at the service: two data dirs ("machines") on one store,
the second following the change feed; a write on the first reaches the second's MEMORY.md
files, removals and global memories too. And the feed's parts: the polling feed wakes on
another commit, the lazy one opens its feed once, on its first subscriber."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ltm_desktop.core.backend import MemoryStore
from ltm_desktop.core.change_feed import ChangeFeed, LazyChangeFeed, PollingChangeFeed, Wake
from ltm_desktop.core.records import GLOBAL_PROJECT_ID, MemoryDraft
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.paths import DataPaths
from ltm_desktop.store import open_store
from tests.api.conftest import wait_until
from tests.conftest import DataDirDatabases, FakeClock
from tests.doubles.memory_store import Files, InMemoryStore

pytestmark = pytest.mark.every_backend
TIMEOUT = 60.0
Machine = Callable[[str, bool], MemoryService]


@pytest.fixture
def machine(
    backend: str, tmp_path: Path, clock: FakeClock, data_dir_databases: DataDirDatabases
) -> Iterator[Machine]:
    """A service on its own data dir (its MEMORY.md files) and the one shared store."""
    shared = DataPaths(tmp_path / "shared")
    in_memory: dict[Path, Files] = {}
    opened: list[MemoryService] = []

    def make(name: str, follow: bool) -> MemoryService:
        paths = DataPaths(tmp_path / name)
        paths.data_dir.mkdir(parents=True, exist_ok=True)
        store: MemoryStore
        url = data_dir_databases.url(shared.data_dir)
        if backend == "memory":
            store = InMemoryStore.open(shared.db_path, in_memory)
        elif url is not None:
            from ltm_desktop.postgres import open_postgres_store

            store = open_postgres_store(url, backup_dir=paths.backup_dir)
        else:
            store = open_store(shared.db_path, shared.backup_dir)
        service = MemoryService(store, paths, clock=clock)
        service.start(follow=follow)
        opened.append(service)
        return service

    yield make
    for service in reversed(opened):
        service.close()


def _file(service: MemoryService, project_id: str) -> str:
    path = service.paths.precis_path(project_id)
    return path.read_text(encoding="utf-8") if path.exists() else ""


def test_a_write_on_one_machine_reaches_the_other_machines_memory_md(machine: Machine) -> None:
    laptop = machine("laptop", False)
    desktop = machine("desktop", True)
    project = laptop.resolve_scope(cwd="/srv/shop", register=True)
    memory = laptop.add(project, MemoryDraft("the shop's prices are in cents zqx1"), "agent")
    wait_until(lambda: "prices are in cents zqx1" in _file(desktop, project), TIMEOUT)

    laptop.remove(memory.memory.id, "agent")
    wait_until(lambda: "zqx1" not in _file(desktop, project), TIMEOUT)


def test_a_global_memory_written_elsewhere_reaches_every_project_file(machine: Machine) -> None:
    laptop = machine("laptop", False)
    project = laptop.resolve_scope(cwd="/srv/shop", register=True)
    laptop.add(project, MemoryDraft("a project fact to make its file"), "agent")
    desktop = machine("desktop", True)
    laptop.add(GLOBAL_PROJECT_ID, MemoryDraft("always answer in British English qzv2"), "me")
    wait_until(lambda: "British English qzv2" in _file(desktop, project), TIMEOUT)


def test_a_process_that_does_not_follow_leaves_its_files_alone(machine: Machine) -> None:
    """Without ``follow`` (a one-shot command) nothing listens: only a write of its own, or
    its next start, rewrites its files."""
    laptop = machine("laptop", False)
    project = laptop.resolve_scope(cwd="/srv/shop", register=True)
    desktop = machine("desktop", False)
    laptop.add(project, MemoryDraft("written on the laptop qzv3"), "agent")
    desktop.add(project, MemoryDraft("written on the desktop qzv4"), "agent")
    assert desktop.views.flush(TIMEOUT)
    assert "qzv4" in _file(desktop, project)  # its own write renders what the store holds
    assert "qzv3" in _file(desktop, project)


# -- the feed's parts -------------------------------------------------------------


class Counter:
    def __init__(self) -> None:
        self.value = 0
        self._lock = threading.Lock()

    def __call__(self) -> None:
        with self._lock:
            self.value += 1


def test_the_polling_feed_wakes_when_the_version_moves() -> None:
    version = Counter()
    feed = PollingChangeFeed(lambda: version.value, interval=0.01)
    woken = Counter()
    feed.subscribe(woken)
    try:
        version()
        wait_until(lambda: woken.value >= 1, TIMEOUT)
    finally:
        feed.close()


class _Feed:
    def __init__(self) -> None:
        self.wakes: list[Wake] = []
        self.closed = False

    def subscribe(self, wake: Wake) -> Callable[[], None]:
        self.wakes.append(wake)
        return lambda: self.wakes.remove(wake)

    def close(self) -> None:
        self.closed = True


def test_the_lazy_feed_opens_once_on_its_first_subscriber_and_closes_it() -> None:
    opened: list[_Feed] = []

    def open_feed() -> ChangeFeed:
        opened.append(_Feed())
        return opened[-1]

    lazy = LazyChangeFeed(open_feed)
    assert not opened
    first, second = Counter(), Counter()
    lazy.subscribe(first)
    stop_second = lazy.subscribe(second)
    assert len(opened) == 1
    opened[0].wakes[0]()  # the feed wakes: every subscriber hears it
    assert (first.value, second.value) == (1, 1)
    stop_second()
    opened[0].wakes[0]()
    assert (first.value, second.value) == (2, 1)
    lazy.close()
    assert opened[0].closed
    lazy.subscribe(Counter())  # closed for good: nothing opens again
    assert len(opened) == 1

"""Several people on one store, each with their own data dir (their machine's MEMORY.md
files): the per-person global scopes' tests (docs/teams.md). A test module's fixture
yields from ``open_people``."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from ltm_desktop.core.actors import Identity, Machine, WhoAmI
from ltm_desktop.core.backend import MemoryStore
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.config import Settings
from ltm_desktop.core.settings.paths import DataPaths
from ltm_desktop.store import open_store
from tests.conftest import DataDirDatabases, FakeClock
from tests.doubles.memory_store import Files, InMemoryStore

PERSONAL = Settings(people_global="personal")


def person(name: str, machine: str = "laptop") -> WhoAmI:
    """``name@machine`` on ``machine``."""
    return WhoAmI.fixed(Identity(f"{name}@{machine}", Machine(machine, machine)))


Open = Callable[..., MemoryService]


def open_people(
    backend: str, tmp_path: Path, clock: FakeClock, data_dir_databases: DataDirDatabases
) -> Iterator[Open]:
    """A service per person, each with its own data dir (its machine's MEMORY.md files),
    all on one store: the first data dir's database."""
    shared = tmp_path / "first"
    opened: list[MemoryService] = []
    in_memory: dict[Path, Files] = {}

    def store_for(paths: DataPaths) -> MemoryStore:
        url = data_dir_databases.url(shared)
        if backend == "memory":
            return InMemoryStore.open(DataPaths(shared).db_path, in_memory)
        if url is not None:
            from ltm_desktop.postgres import open_postgres_store

            return open_postgres_store(url, backup_dir=paths.backup_dir)
        return open_store(DataPaths(shared).db_path, paths.backup_dir)

    def factory(
        name: str, settings: Settings = PERSONAL, who: WhoAmI | None = None
    ) -> MemoryService:
        data = shared if not opened else tmp_path / name
        data.mkdir(parents=True, exist_ok=True)
        paths = DataPaths(data)
        service = MemoryService(
            store_for(paths), paths, settings, clock=clock, identity=who or person(name)
        )
        service.start()
        opened.append(service)
        return service

    yield factory
    for service in reversed(opened):
        service.close()

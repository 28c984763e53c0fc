"""Shared factories: a fake clock, fresh services on temporary data dirs, drafts.

A module marked ``every_backend`` runs each of its service tests on three engines: the
SQLite store, the PostgreSQL store (on the server ``LTM_TEST_DATABASE_URL`` names:
tests/pg_databases.py) and the in-memory double (tests/doubles), which stores and decides
nothing; a test that looks at SQLite itself is marked ``sqlite_only``.

A test marked ``slow`` (over a second: real agent CLIs, many processes, large data,
many generated examples) runs only with ``--slow``, which ``scripts/check.py`` and so
CI always pass: a plain ``pytest`` is the quick run a developer repeats.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ltm_desktop.core.backend import MemoryStore
from ltm_desktop.core.records import MemoryDraft
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.config import Settings
from ltm_desktop.core.settings.paths import ENV_CONFIG, ENV_DATA_DIR, DataPaths
from ltm_desktop.store import open_store
from tests.doubles.memory_store import Files, InMemoryStore
from tests.pg_databases import PgDatabases

pytest_plugins = ["tests.pg_server"]  # real PostgreSQL: pg_server_url, pg_url

START = 1_800_000_000.0  # 2027-01-15, a fixed "now" for tests
BACKENDS = ("sqlite", "postgres", "memory")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "every_backend: run the module's service tests on every backend"
    )
    config.addinivalue_line("markers", "sqlite_only: the test looks at SQLite itself")
    config.addinivalue_line(
        "markers", "slow: takes over a second; run with --slow (scripts/check.py and CI do)"
    )


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--slow",
        action="store_true",
        help="also run the tests marked slow (scripts/check.py, and so CI, always does)",
    )


@pytest.hookimpl(trylast=True)  # after the folders' own conftests have marked their items
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Without ``--slow``, the slow tests are deselected (and counted as such)."""
    if config.getoption("--slow"):
        return
    slow = [item for item in items if item.get_closest_marker("slow")]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if not item.get_closest_marker("slow")]


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's hooks: only called under -n
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """How many workers ``-n auto`` starts (tests/parallel.py), unless
    PYTEST_XDIST_AUTO_NUM_WORKERS says (pytest-xdist reads it)."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    from tests.parallel import workers

    return workers()


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """The default ``--dist load`` spreads the tests as tests/parallel.py says; another
    ``--dist`` asked for is pytest-xdist's own."""
    if config.getvalue("dist") != "load":
        return None
    from tests.parallel import Scheduler

    return Scheduler(config, log)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    marked = metafunc.definition.get_closest_marker
    if "backend" in metafunc.fixturenames and marked("every_backend") and not marked("sqlite_only"):
        metafunc.parametrize("backend", BACKENDS, indirect=True)


class FakeClock:
    """A controllable time source; ``advance`` moves it forward."""

    def __init__(self, start: float = START) -> None:
        self.now = start
        self._lock = threading.Lock()

    def __call__(self) -> float:
        with self._lock:
            self.now += 0.001  # strictly increasing, like a real clock
            return self.now

    def advance(self, seconds: float = 0, *, days: float = 0) -> None:
        with self._lock:
            self.now += seconds + days * 86_400


def make_draft(content: str = "Run the tests with make test", **overrides: Any) -> MemoryDraft:
    return MemoryDraft(content=content, **overrides)


ServiceFactory = Callable[..., MemoryService]


@pytest.fixture(autouse=True)
def _isolated_environment(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No test may touch the real data or config directories."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv(ENV_DATA_DIR, str(home / "data"))
    monkeypatch.setenv(ENV_CONFIG, str(home / "config.toml"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "xdg-data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "xdg-config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / "xdg-state"))  # the hooks' log dir
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "xdg-cache"))  # secret patterns
    (home / "xdg-runtime").mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(home / "xdg-runtime"))
    # Servers started by tests keep no warm MCP process (each imports the MCP SDK: half a
    # second of CPU); tests/agent/mcp/test_mcp_warm.py and the "warm" MCP mode turn it on.
    monkeypatch.setenv("LTM_DESKTOP_MCP_WARM", "0")


@pytest.fixture(autouse=True)
def _no_leaked_threads() -> Iterator[None]:
    before = set(threading.enumerate())
    yield
    leaked = [t for t in threading.enumerate() if t not in before and t.is_alive()]
    for thread in leaked:
        thread.join(timeout=5)
    still = [t.name for t in leaked if t.is_alive()]
    assert not still, f"test left threads running: {still}"


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def backend(request: pytest.FixtureRequest) -> str:
    """Which store services are built on: SQLite unless the module runs on every backend."""
    return str(getattr(request, "param", "sqlite"))


@pytest.fixture(scope="session")
def pg_databases(pg_server_url: str) -> Iterator[PgDatabases]:
    """This test process's PostgreSQL databases (made once, emptied between tests)."""
    databases = PgDatabases(pg_server_url)
    yield databases
    databases.drop_all()


@pytest.fixture
def make_service(
    tmp_path: Path, clock: FakeClock, backend: str, request: pytest.FixtureRequest
) -> Iterator[ServiceFactory]:
    opened: list[MemoryService] = []
    in_memory: dict[Path, Files] = {}  # the double's "files", shared by stores on one dir
    pg_urls: dict[Path, str] = {}  # a database per data dir, shared by stores on one dir
    pg: PgDatabases | None = None
    if backend == "postgres":
        pg = request.getfixturevalue("pg_databases")

    def factory(
        data_dir: Path | None = None, settings: Settings | None = None, **kwargs: Any
    ) -> MemoryService:
        paths = DataPaths(data_dir or tmp_path / "data")
        store: MemoryStore
        if backend == "memory":
            store = InMemoryStore.open(paths.db_path, in_memory)
        elif pg is not None:
            from ltm_desktop.postgres import open_postgres_store

            url = pg_urls.get(paths.data_dir)
            if url is None:
                url = pg_urls[paths.data_dir] = pg.take()
            paths.data_dir.mkdir(parents=True, exist_ok=True)
            store = open_postgres_store(url, backup_dir=paths.backup_dir)
        else:
            store = open_store(paths.db_path, paths.backup_dir)
        service = MemoryService(store, paths, settings, clock=kwargs.pop("clock", clock), **kwargs)
        service.start()
        opened.append(service)
        return service

    yield factory
    for service in opened:
        service.close()
    if pg is not None:
        for url in pg_urls.values():
            pg.release(url)


@pytest.fixture
def service(make_service: ServiceFactory) -> MemoryService:
    return make_service()


@pytest.fixture
def project(service: MemoryService) -> str:
    return service.resolve_scope(cwd="/home/dev/src/billing-api", register=True)

"""Shared factories: a fake clock, fresh services on temporary data dirs, drafts.

A module marked ``every_backend`` runs each of its service tests on three engines: the
SQLite store, the PostgreSQL store (on the server ``LTM_TEST_DATABASE_URL`` names:
tests/pg_databases.py) and the in-memory double (tests/doubles), which stores and decides
nothing; a test that looks at SQLite itself is marked ``sqlite_only``, one that needs what
the double does not do (snippets, threads reading beside writers) ``real_engines``. A test
that starts another process on a service's store takes its environment from
``process_env`` (the database's URL on PostgreSQL), and so runs on the real engines only.

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

from ltm_desktop.agent.hooks.runner import ENV_DEADLINE
from ltm_desktop.core.backend import MemoryStore
from ltm_desktop.core.records import MemoryDraft
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.config import Settings
from ltm_desktop.core.settings.launch import ENV_DATABASE_URL
from ltm_desktop.core.settings.paths import ENV_CONFIG, ENV_DATA_DIR, DataPaths
from ltm_desktop.store import open_store
from tests.doubles.memory_store import Files, InMemoryStore
from tests.pg_databases import PgDatabases, to_url

pytest_plugins = ["tests.pg_server"]  # real PostgreSQL: pg_server_url, pg_url

START = 1_800_000_000.0  # 2027-01-15, a fixed "now" for tests
BACKENDS = ("sqlite", "postgres", "memory")
REAL_ENGINES = ("sqlite", "postgres")  # the stores a user runs; the double is a test's


def pytest_configure(config: pytest.Config) -> None:
    # The hooks' own deadline (1.5 s, the agents' budget) is for people's machines; on a
    # loaded test machine a hook must finish its work to be checked, so every hook the
    # tests start (directly or through an agent's CLI) may take 10 s. A test of the
    # deadline itself sets its own.
    os.environ.setdefault(ENV_DEADLINE, "10")
    config.addinivalue_line(
        "markers", "every_backend: run the module's service tests on every backend"
    )
    config.addinivalue_line("markers", "sqlite_only: the test looks at SQLite itself")
    config.addinivalue_line(
        "markers",
        "real_engines: in an every_backend module, runs on SQLite and PostgreSQL only (it "
        "needs what the in-memory double does not do: snippets, reads beside writes)",
    )
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
        # Another process cannot open the in-memory double: a test that starts one
        # (``process_env``) runs on the real engines only, as one marked so does.
        real = marked("real_engines") or "process_env" in metafunc.fixturenames
        metafunc.parametrize("backend", REAL_ENGINES if real else BACKENDS, indirect=True)


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
    monkeypatch.delenv(ENV_DATABASE_URL, raising=False)  # SQLite unless a test names a server
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


class DataDirDatabases:
    """The PostgreSQL database of each data dir a test's stores use: one per dir, taken on
    first use (by ``make_service`` or by a second process's environment), released after."""

    def __init__(self, pg: PgDatabases | None) -> None:
        self._pg = pg
        self._urls: dict[Path, str] = {}

    def url(self, data_dir: Path) -> str | None:
        """The libpq URL of ``data_dir``'s database; None when the test runs on SQLite."""
        if self._pg is None:
            return None
        url = self._urls.get(data_dir)
        if url is None:
            url = self._urls[data_dir] = self._pg.take()
        return url

    def release(self) -> None:
        if self._pg is not None:
            for url in self._urls.values():
                self._pg.release(url)
        self._urls.clear()


@pytest.fixture
def data_dir_databases(backend: str, request: pytest.FixtureRequest) -> Iterator[DataDirDatabases]:
    pg: PgDatabases | None = None
    if backend == "postgres":
        pg = request.getfixturevalue("pg_databases")
    databases = DataDirDatabases(pg)
    yield databases
    databases.release()


ProcessEnv = Callable[[Path], dict[str, str]]


@pytest.fixture
def process_env(backend: str, data_dir_databases: DataDirDatabases) -> ProcessEnv:
    """The environment of another process (the console script) on the store of a data dir:
    ``LTM_DESKTOP_DATABASE_URL`` names its database on PostgreSQL, as a user would set it.
    The in-memory double lives in this process only: such a test is not made for it
    (``pytest_generate_tests``)."""
    if backend == "memory":
        raise AssertionError("another process cannot open the in-memory double")

    def env(data_dir: Path) -> dict[str, str]:
        environment = dict(os.environ)
        environment.pop(ENV_DATABASE_URL, None)
        url = data_dir_databases.url(data_dir)
        if url is not None:
            environment[ENV_DATABASE_URL] = to_url(url)
        return environment

    return env


@pytest.fixture
def make_service(
    tmp_path: Path, clock: FakeClock, backend: str, data_dir_databases: DataDirDatabases
) -> Iterator[ServiceFactory]:
    opened: list[MemoryService] = []
    in_memory: dict[Path, Files] = {}  # the double's "files", shared by stores on one dir

    def factory(
        data_dir: Path | None = None, settings: Settings | None = None, **kwargs: Any
    ) -> MemoryService:
        paths = DataPaths(data_dir or tmp_path / "data")
        store: MemoryStore
        url = data_dir_databases.url(paths.data_dir)  # a database per data dir
        if backend == "memory":
            store = InMemoryStore.open(paths.db_path, in_memory)
        elif url is not None:
            from ltm_desktop.postgres import open_postgres_store

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


@pytest.fixture
def service(make_service: ServiceFactory) -> MemoryService:
    return make_service()


@pytest.fixture
def project(service: MemoryService) -> str:
    return service.resolve_scope(cwd="/home/dev/src/billing-api", register=True)

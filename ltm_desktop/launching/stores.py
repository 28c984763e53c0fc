"""The engine a Launch names: PostgreSQL at its URL, else SQLite in the data dir, with
the deadlines each kind of process may wait for a server."""

from __future__ import annotations

from ltm_desktop.core.backend import MemoryStore
from ltm_desktop.core.errors import StorageError
from ltm_desktop.core.settings.launch import Launch
from ltm_desktop.store import open_store

# A PostgreSQL connection's timeout: a long-lived process may wait for a slow network; a
# hook (busy_timeout_ms) gets a short one, an agent waits on every hook. psycopg, as libpq,
# waits at least 2 s (it takes 1 as 2): a hook's own deadline (1.5 s) answers before that.
# An agent's MCP server or tool call waits on the opening too (a server that drops packets
# cost it 10 s per tool call): it gets psycopg's least.
CONNECT_TIMEOUT_S = 10
BRIEF_CONNECT_TIMEOUT_S = 1
AGENT_CONNECT_TIMEOUT_S = 2
PROBE_TIMEOUT_S = 2  # the outbox's look at an unreachable server (``postgres.reachable``)


def open_launch_store(
    launch: Launch,
    *,
    create: bool,
    busy_timeout_ms: int | None = None,
    connect_timeout_s: int | None = None,
) -> MemoryStore:
    """The engine the Launch names: PostgreSQL at its URL, else SQLite in the data dir.

    ``create``: False refuses a database that is not there (SQLite) or has none of our
    tables (PostgreSQL). ``busy_timeout_ms``: a brief process's wait for a lock; for
    PostgreSQL it also shortens the connect timeout, unless ``connect_timeout_s`` (whole
    seconds to reach the server) says how long. PostgreSQL's package (and psycopg)
    is imported only here, only when a URL is set: SQLite's processes never load it.

    Raises:
        StorageError: the store cannot be opened (for PostgreSQL: its support is missing).
    """
    paths = launch.paths
    url = launch.database_url
    if url is None:
        if busy_timeout_ms is None:
            return open_store(paths.db_path, paths.backup_dir, create=create)
        return open_store(
            paths.db_path, paths.backup_dir, busy_timeout_ms=busy_timeout_ms, create=create
        )
    missing = (
        f"cannot use {url.display}: PostgreSQL support is not installed ({{}}); install "
        "ltm-desktop with psycopg, or unset the database URL to use SQLite"
    )
    try:
        from ltm_desktop.postgres import open_postgres_store
    except ImportError as exc:  # the package is not there
        raise StorageError(missing.format(exc.name or exc)) from None
    timeout = CONNECT_TIMEOUT_S
    if connect_timeout_s is not None:
        timeout = connect_timeout_s
    elif busy_timeout_ms is not None:
        timeout = max(BRIEF_CONNECT_TIMEOUT_S, -(-busy_timeout_ms // 1000))
    try:
        store: MemoryStore = open_postgres_store(
            url.conninfo,
            backup_dir=paths.backup_dir,
            create=create,
            connect_timeout=timeout,
            lock_timeout_ms=busy_timeout_ms,
        )
    except ModuleNotFoundError as exc:  # the driver, imported by the engine when it opens
        if not (exc.name or "").startswith("psycopg"):
            raise
        raise StorageError(missing.format(exc.name)) from None
    return store

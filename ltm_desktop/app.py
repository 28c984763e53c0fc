"""Composition root: a process's ``Launch`` (data dir and settings, resolved once) ->
store -> service, with its extraction worker and, for long-lived processes, the periodic
consolidation. No logic of its own, and nothing imports it for helpers."""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ltm_desktop.core.actors import WhoAmI
from ltm_desktop.core.backend import MemoryStore
from ltm_desktop.core.errors import DatabaseUnreachable, StorageError
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.config import Settings
from ltm_desktop.core.settings.launch import Launch, resolve_launch
from ltm_desktop.core.settings.paths import check_data_dir, data_dir_exists, prepare_data_dir
from ltm_desktop.embedding.factory import make_embedder
from ltm_desktop.engine.copying import CopySource, CopyTarget
from ltm_desktop.store import open_store

if TYPE_CHECKING:
    from ltm_desktop.outbox import DeferredStore, LocalOutbox


@dataclass
class OpenedService:
    service: MemoryService
    launch: Launch
    purged_at_start: int = 0

    @property
    def settings(self) -> Settings:
        return self.launch.settings

    @property
    def config_path(self) -> Path:
        return self.launch.config_path

    @property
    def warnings(self) -> list[str]:
        """What was wrong with the config file (a bad one never stops a process)."""
        return list(self.launch.config_problems)


# -- ``ltm-desktop migrate``: the two ends of a copy, and a service on its target ------


def open_copy_source(launch: Launch, database_url: str | None) -> CopySource:
    """The rows to copy (``engine.copying``), one read snapshot: the PostgreSQL database
    ``database_url`` names, or (None) the SQLite database of the launch's data dir."""
    if database_url is None:
        from ltm_desktop.store import SqliteRows

        check_data_dir(launch.data_dir)
        return SqliteRows(launch.paths.db_path, launch.paths.backup_dir)
    from ltm_desktop.postgres.copying import PgRows

    return PgRows(database_url)


def open_copy_target(launch: Launch, database_url: str | None) -> CopyTarget:
    """Where a copy goes: the PostgreSQL database ``database_url`` names (its schema made
    if it has none), or (None) a new SQLite database in the launch's data dir."""
    if database_url is None:
        from ltm_desktop.store import SqliteTarget

        prepare_data_dir(launch.data_dir)
        return SqliteTarget(launch.paths.db_path, launch.paths.backup_dir)
    from ltm_desktop.postgres.copying import PgTarget

    return PgTarget(database_url)


def open_copied_service(launch: Launch, database_url: str | None) -> MemoryService:
    """A service on a copy's target, not started (no expiry, no MEMORY.md written: the
    copy stays as it was copied), for its backfill and its verification."""
    from dataclasses import replace

    from ltm_desktop.core.settings.database_url import DatabaseUrl

    url = None if database_url is None else DatabaseUrl.parse(database_url)
    target = replace(launch, database_url=url)  # not the configured store: the copy's
    return MemoryService(
        open_launch_store(target, create=False),
        target.paths,
        target.settings,
        embedder=make_embedder(target.settings),
        config_path=target.config_path,
        identity=launch_identity(target),
    )


def launch_identity(launch: Launch) -> WhoAmI:
    """Who the process writes as (``core.actors``): ``[people] name`` or the login name,
    at the machine of the data dir's ``machine.json``; resolved on the first write."""
    return WhoAmI.of(launch.settings.people_name, launch.paths.machine_path)


def open_service(
    data_dir: str | os.PathLike[str] | None = None,
    config_path: str | os.PathLike[str] | None = None,
    clock: Callable[[], float] = time.time,
    *,
    background: bool = False,
    create: bool = True,
    database_url: str | None = None,
) -> OpenedService:
    """``open_launch`` for a caller that has not resolved its ``Launch`` yet (a one-shot
    command, a test): ``data_dir``, ``config_path`` and ``database_url`` (``--database-url``)
    as ``resolve_launch`` takes them."""
    launch = resolve_launch(data_dir, config_path, database_url)
    return open_launch(launch, clock, background=background, create=create)


def open_launch(
    launch: Launch,
    clock: Callable[[], float] = time.time,
    *,
    background: bool = False,
    create: bool = True,
    connect_timeout_s: int | None = None,
    offline: bool = False,
) -> OpenedService:
    """Open the data directory's database, run startup housekeeping, return the service.

    Args:
        background: a long-lived process (the app, ``serve``): fill in missing vectors and
            token sets in the background, and run the periodic consolidation if
            configured. Short-lived commands leave that to those.
        create: make the data dir and database when there are none. Commands that only
            look or take away (status, verify, export, erase) pass False: a mistyped
            ``--data-dir`` is an error, not a new empty database found sound.
        connect_timeout_s: how long a PostgreSQL server may take to answer (None: the
            ``CONNECT_TIMEOUT_S`` of a process that can wait; an agent's MCP server passes
            ``AGENT_CONNECT_TIMEOUT_S``).
        offline: keep an outbox (``ltm_desktop.outbox``) when the store is PostgreSQL: an
            unreachable server (at start or later) queues writes in the data dir instead of
            failing them, and they are replayed in the background once it answers.
    """
    from ltm_desktop.agent.extractor.worker import ExtractionWorker  # not for a hook's opening

    settings = launch.settings
    if create:
        prepare_data_dir(launch.data_dir)
    elif data_dir_exists(launch.data_dir):  # else the store says there is no database
        check_data_dir(launch.data_dir)
    outbox: Outboxed | None = None
    if offline and launch.database_url is not None:
        outbox = _open_outboxed(launch, create, connect_timeout_s)
        store = outbox.store
    else:
        store = open_launch_store(launch, create=create, connect_timeout_s=connect_timeout_s)
    embedder = make_embedder(settings)  # loads nothing until it first embeds
    who = launch_identity(launch)
    if background:  # a long-lived process makes machine.json now, not a hook's first write
        _ = who.identity
    service = MemoryService(
        store,
        launch.paths,
        settings,
        clock=clock,
        embedder=embedder,
        config_path=launch.config_path,
        config_problems=launch.config_problems,
        extraction=ExtractionWorker,
        identity=who,
    )
    try:
        purged = 0
        if outbox is None or outbox.deferred is None:
            purged = service.start(backfill=background, follow=background)
        if outbox is not None:
            outbox.attach(service, backfill=background, follow=background)
        if background and settings.consolidate_interval_hours and settings.extractor_configured:
            from ltm_desktop.agent.consolidation.periodic import PeriodicConsolidation

            hours = settings.consolidate_interval_hours
            service.consolidation = periodic = PeriodicConsolidation(
                service, embedder, hours * 3600
            )
            periodic.start()
    except BaseException:
        service.close()
        raise
    return OpenedService(service, launch, purged)


@dataclass
class Outboxed:
    """A PostgreSQL store with this data dir's outbox: ``deferred`` when the server could
    not be reached at start (connected by the outbox's thread once it answers)."""

    store: MemoryStore
    outbox: LocalOutbox
    deferred: DeferredStore | None

    def attach(self, service: MemoryService, *, backfill: bool, follow: bool) -> None:
        """Hand the outbox to ``service`` and start its thread. A store opened late runs
        the startup housekeeping then, before the outbox replays."""
        deferred = self.deferred
        if deferred is not None:

            def reached() -> None:
                deferred.connect()
                service.start(backfill=backfill, follow=follow)

            self.outbox.set_on_reachable(reached)
        service.offline = self.outbox
        self.outbox.start(service)


def _open_outboxed(launch: Launch, create: bool, connect_timeout_s: int | None) -> Outboxed:
    from ltm_desktop.outbox import DeferredStore, LocalOutbox
    from ltm_desktop.postgres.reachable import probe

    url = launch.database_url
    assert url is not None
    conninfo = url.conninfo
    outbox_probe = functools.partial(probe, conninfo, PROBE_TIMEOUT_S)
    try:
        store = open_launch_store(launch, create=create, connect_timeout_s=connect_timeout_s)
    except DatabaseUnreachable as exc:
        opener = functools.partial(
            open_launch_store, launch, create=create, connect_timeout_s=CONNECT_TIMEOUT_S
        )
        deferred = DeferredStore(opener, url.display, str(exc))
        outbox = LocalOutbox(launch.data_dir, outbox_probe, offline=str(exc))
        return Outboxed(deferred.as_store(), outbox, deferred)
    try:
        return Outboxed(store, LocalOutbox(launch.data_dir, outbox_probe), None)
    except BaseException:
        store.close()
        raise


def open_launch_briefly(launch: Launch, *, busy_timeout_ms: int) -> OpenedService:
    """The service for a process that lives for one event (an agent hook).

    No startup housekeeping (expiring, regenerating every MEMORY.md: the app's job),
    writes wait at most ``busy_timeout_ms`` for another process's lock, not the store's 10 s,
    and no database is created (an empty file or another SQLite file is refused).
    """
    prepare_data_dir(launch.data_dir)
    store = open_launch_store(launch, create=False, busy_timeout_ms=busy_timeout_ms)
    service = MemoryService(
        store,
        launch.paths,
        launch.settings,
        config_path=launch.config_path,
        config_problems=launch.config_problems,
        identity=launch_identity(launch),
    )
    return OpenedService(service, launch)


def open_service_briefly(
    data_dir: str | os.PathLike[str] | None,
    config_path: str | os.PathLike[str] | None,
    *,
    busy_timeout_ms: int,
) -> OpenedService:
    """``open_launch_briefly`` for a caller that has not resolved its ``Launch`` yet (the
    database URL from the environment or the config file: a hook has no option)."""
    return open_launch_briefly(
        resolve_launch(data_dir, config_path), busy_timeout_ms=busy_timeout_ms
    )


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

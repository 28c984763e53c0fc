"""Composition root: a process's ``Launch`` (data dir and settings, resolved once) ->
store -> service. Long-lived processes add the agent side's workers (extraction, the
periodic consolidation) through ``workers``: this package sits below ``ltm_desktop.agent``,
which opens its own services through it."""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from ltm_desktop.core.errors import DatabaseUnreachable
from ltm_desktop.core.seams import Embedder
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.launch import Launch, resolve_launch
from ltm_desktop.core.settings.paths import check_data_dir, data_dir_exists, prepare_data_dir
from ltm_desktop.embedding.factory import make_embedder
from ltm_desktop.launching.opened import OpenedService, launch_identity
from ltm_desktop.launching.stores import open_launch_store

# What a long-lived process adds to its started service (``agent.long_lived``): given the
# service, its embedder and whether the process is long-lived (``background``).
Workers = Callable[[MemoryService, Embedder, bool], None]


def open_service(
    data_dir: str | os.PathLike[str] | None = None,
    config_path: str | os.PathLike[str] | None = None,
    clock: Callable[[], float] = time.time,
    *,
    background: bool = False,
    create: bool = True,
    database_url: str | None = None,
    workers: Workers | None = None,
) -> OpenedService:
    """``open_launch`` for a caller that has not resolved its ``Launch`` yet (a one-shot
    command, a test): ``data_dir``, ``config_path`` and ``database_url`` (``--database-url``)
    as ``resolve_launch`` takes them."""
    launch = resolve_launch(data_dir, config_path, database_url)
    return open_launch(launch, clock, background=background, create=create, workers=workers)


def open_launch(
    launch: Launch,
    clock: Callable[[], float] = time.time,
    *,
    background: bool = False,
    create: bool = True,
    connect_timeout_s: int | None = None,
    offline: bool = False,
    workers: Workers | None = None,
) -> OpenedService:
    """Open the data directory's database, run startup housekeeping, return the service.

    Args:
        background: a long-lived process (the app, ``serve``): fill in missing vectors and
            token sets in the background and follow other processes' changes.
            Short-lived commands leave that to those.
        create: make the data dir and database when there are none. Commands that only
            look or take away (status, verify, export, erase) pass False: a mistyped
            ``--data-dir`` is an error, not a new empty database found sound.
        connect_timeout_s: how long a PostgreSQL server may take to answer (None: the
            ``CONNECT_TIMEOUT_S`` of a process that can wait; an agent's MCP server passes
            ``AGENT_CONNECT_TIMEOUT_S``).
        offline: keep an outbox (``ltm_desktop.outbox``) when the store is PostgreSQL: an
            unreachable server (at start or later) queues writes in the data dir instead of
            failing them, and they are replayed in the background once it answers.
        workers: called on the started service (``agent.long_lived``: the extraction
            worker, and the periodic consolidation for a ``background`` process).
    """
    from ltm_desktop.launching.outboxed import Outboxed, open_outboxed

    settings = launch.settings
    if create:
        prepare_data_dir(launch.data_dir)
    elif data_dir_exists(launch.data_dir):  # else the store says there is no database
        check_data_dir(launch.data_dir)
    outbox: Outboxed | None = None
    if offline and launch.database_url is not None:
        outbox = open_outboxed(launch, create, connect_timeout_s)
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
        identity=who,
    )
    try:
        purged, started = 0, False
        if outbox is None or outbox.deferred is None:
            try:
                purged = service.start(backfill=background, follow=background)
                started = True
            except DatabaseUnreachable as exc:  # lost since it connected: start offline
                if outbox is None:
                    raise
                outbox.outbox.unreachable(str(exc))
        if outbox is not None:
            outbox.attach(service, backfill=background, follow=background, started=started)
        if workers is not None:
            workers(service, embedder, background)
    except BaseException:
        service.close()
        raise
    return OpenedService(service, launch, purged)


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

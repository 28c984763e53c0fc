"""A PostgreSQL store kept with this data dir's offline outbox (``ltm_desktop.outbox``):
writes made while the server cannot be reached are queued here and replayed once it
answers; a server down at start is connected later by the outbox's thread."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from ltm_desktop.core.backend import MemoryStore
from ltm_desktop.core.errors import DatabaseUnreachable
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.launch import Launch
from ltm_desktop.launching.stores import CONNECT_TIMEOUT_S, PROBE_TIMEOUT_S, open_launch_store
from ltm_desktop.outbox import DeferredStore, LocalOutbox


@dataclass
class Outboxed:
    """A PostgreSQL store with this data dir's outbox: ``deferred`` when the server could
    not be reached at start (connected by the outbox's thread once it answers)."""

    store: MemoryStore
    outbox: LocalOutbox
    deferred: DeferredStore | None

    def attach(
        self, service: MemoryService, *, backfill: bool, follow: bool, started: bool
    ) -> None:
        """Hand the outbox to ``service`` and start its thread. A store opened late, or
        one whose startup housekeeping was cut short by losing the server (``started``
        False), runs that housekeeping once the server answers, before the outbox replays."""
        deferred = self.deferred
        if deferred is not None or not started:

            def reached() -> None:
                if deferred is not None:
                    deferred.connect()
                service.start(backfill=backfill, follow=follow)

            self.outbox.set_on_reachable(reached)
        service.offline = self.outbox
        self.outbox.start(service)


def open_outboxed(launch: Launch, create: bool, connect_timeout_s: int | None) -> Outboxed:
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

"""What ``events.subscribe`` connections receive: every committed change to the store,
whoever made it (this server, another process on the data dir, a ``serve --workers``
sibling, another machine on the same PostgreSQL database), read from the audit history.

The history is the one order every writer shares, so subscribers get each event once,
in commit order, in one shape wherever it was written. The relay reads the events after
the last one it delivered whenever something may be new: this process committed (the
service's ``events``), or another one did (the service's change feed: ``NOTIFY`` on
PostgreSQL, ``data_version`` on SQLite, and a wake after the listener reconnects). It
opens the feed, and reads the history at all, only once a connection has subscribed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable
from concurrent.futures import Executor

from ltm_desktop.core.errors import LtmError
from ltm_desktop.core.records import AuditEvent, ChangeEvent
from ltm_desktop.core.service import MemoryService

log = logging.getLogger(__name__)
PAGE = 1_000  # audit events read at a time
RETRY_S = 1.0  # after a failed read (a locked or unreachable database), look again
Deliver = Callable[[ChangeEvent], None]


def change_of(event: AuditEvent) -> ChangeEvent:
    """An audit event as a ``memory.changed`` notification carries it. (Where the
    actors' machine goes when audit events name it: here, and in ``Connection``.)"""
    return ChangeEvent(event.memory_id, event.project_id, event.action.value, event.actor, event.at)


class ChangeRelay:
    """Reads new audit events on the server's pool and hands them, on its event loop, to
    each subscribed connection's ``deliver``."""

    def __init__(
        self, service: MemoryService, loop: asyncio.AbstractEventLoop, pool: Executor
    ) -> None:
        self._service = service
        self._loop = loop
        self._pool = pool
        self._subscribers: set[Deliver] = set()
        self._lock = threading.Lock()
        self._news = asyncio.Event()  # set on the loop: something may be new
        self._task: asyncio.Task[None] | None = None
        self._cursor = 0
        self._unsubscribe: list[Callable[[], None]] = []
        self._stopped = False

    def subscribe(self, deliver: Deliver) -> Callable[[], None]:
        """From any thread but the loop's (it may read the history): ``deliver`` gets the
        events committed from now on. Returns the unsubscribe (call it on the loop)."""
        with self._lock:
            if not self._unsubscribe and not self._stopped:
                self._cursor = self._service.history.last_event_seq()
                self._unsubscribe = [
                    self._service.events.subscribe(lambda _event: self._wake()),
                    self._service.changes.subscribe(self._wake),
                ]
                self._loop.call_soon_threadsafe(self._start)
            self._subscribers.add(deliver)
        return lambda: self._subscribers.discard(deliver)

    def _wake(self) -> None:
        with contextlib.suppress(RuntimeError):  # the loop has closed
            self._loop.call_soon_threadsafe(self._news.set)

    def _start(self) -> None:
        if self._task is None and not self._stopped:
            self._task = self._loop.create_task(self._relay())

    async def _relay(self) -> None:
        while True:
            await self._news.wait()
            self._news.clear()
            try:
                await self._deliver_new()
            except LtmError as exc:
                log.warning("reading the audit history for subscribers failed: %s", exc)
                await asyncio.sleep(RETRY_S)
                self._news.set()

    async def _deliver_new(self) -> None:
        """Every event after the last one delivered, page by page, in order."""
        history = self._service.history
        while True:
            if not self._subscribers:  # nobody to tell: skip to the end
                self._cursor = await self._loop.run_in_executor(self._pool, history.last_event_seq)
                return
            events = await self._loop.run_in_executor(
                self._pool, history.events_after, self._cursor, PAGE
            )
            for event in events:
                self._cursor = event.seq
                change = change_of(event)
                for deliver in list(self._subscribers):
                    deliver(change)
            if len(events) < PAGE:
                return

    def stop(self) -> None:
        """On the loop: no more reads, no more wakes."""
        with self._lock:
            self._stopped = True
            unsubscribe, self._unsubscribe = self._unsubscribe, []
        for undo in unsubscribe:
            undo()
        if self._task is not None:
            self._task.cancel()

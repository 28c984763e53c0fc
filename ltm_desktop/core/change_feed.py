"""The change feed: "another process or machine has committed to the store", without
each consumer polling the database.

A feed only wakes; it carries no changes. What changed is read from the audit history
after the last event a consumer has seen (``MemoryStore.events_after``): the history is
the truth, a wake is a hint, so a wake that is lost, doubled or early never loses or
repeats an event. A feed wakes at least once after every commit of another process
(PostgreSQL: ``NOTIFY`` on commit, and once after the listener reconnects, for what it
may have missed; SQLite: ``PollingChangeFeed`` on ``data_version``), and may wake
when nothing is new.

Callbacks run on the feed's own thread: they must be quick (set a flag, post to a loop).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Protocol

log = logging.getLogger(__name__)
Wake = Callable[[], None]
POLL_INTERVAL_S = 0.2  # SQLite's data_version is one pragma on an open connection


class ChangeFeed(Protocol):
    """Wakes its subscribers when someone else may have committed (see the module)."""

    def subscribe(self, wake: Wake) -> Callable[[], None]:
        """Call ``wake()`` (on the feed's thread) after others' commits; returns the
        unsubscribe."""
        ...

    def close(self) -> None:
        """Stop the feed's thread and release what it holds (idempotent)."""
        ...


class Wakers:
    """The subscribers of one feed: added, removed and woken from any thread."""

    def __init__(self) -> None:
        self._wakes: list[Wake] = []
        self._lock = threading.Lock()

    def subscribe(self, wake: Wake) -> Callable[[], None]:
        with self._lock:
            self._wakes.append(wake)

        def unsubscribe() -> None:
            with self._lock:
                if wake in self._wakes:
                    self._wakes.remove(wake)

        return unsubscribe

    def wake(self) -> None:
        with self._lock:
            wakes = list(self._wakes)
        for wake in wakes:
            try:
                wake()
            except Exception:  # noqa: BLE001 - one consumer never stops the others' wakes
                log.exception("a change feed subscriber failed")


class PollingChangeFeed:
    """A feed from a "has anyone else committed?" number (``MemoryStore.data_version``),
    read every ``interval`` seconds on a thread of its own (SQLite, the test double)."""

    def __init__(self, version: Callable[[], int], interval: float = POLL_INTERVAL_S) -> None:
        self._version = version
        self._interval = interval
        self._wakers = Wakers()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="ltm-change-poll", daemon=True)
        self._thread.start()

    def subscribe(self, wake: Wake) -> Callable[[], None]:
        return self._wakers.subscribe(wake)

    def _read(self) -> int | None:
        try:
            return self._version()
        except Exception as exc:  # noqa: BLE001 - a locked or closed store: ask again later
            log.debug("change feed: reading the data version failed: %s", exc)
            return None

    def _run(self) -> None:
        known = self._read()
        while not self._stop.wait(self._interval):
            version = self._read()
            if version is not None and version != known:
                known = version
                self._wakers.wake()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not threading.current_thread():
            self._thread.join(5.0)


class RelayedFeed:
    """Subscribers kept here and woken by an inner feed attached later, once: a feed that
    exists before the one it stands for (``LazyChangeFeed``; the feed of a store that
    connects later, ``outbox.deferred``). ``close`` ends it for good, the inner one too."""

    def __init__(self) -> None:
        self._wakers = Wakers()
        self._inner: ChangeFeed | None = None
        self._lock = threading.Lock()
        self._closed = False

    def subscribe(self, wake: Wake) -> Callable[[], None]:
        return self._wakers.subscribe(wake)

    def attach(self, open_feed: Callable[[], ChangeFeed]) -> bool:
        """Open the inner feed and relay its wakes, unless one is attached already or this
        feed is closed; whether it was attached now."""
        with self._lock:
            if self._closed or self._inner is not None:
                return False
            self._inner = open_feed()
            self._inner.subscribe(self._wakers.wake)
        return True

    def wake(self) -> None:
        """Wake every subscriber now (from the caller's thread)."""
        self._wakers.wake()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            inner, self._inner = self._inner, None
        if inner is not None:
            inner.close()


class LazyChangeFeed:
    """A process's one feed, opened on its first subscriber (a one-shot command never
    opens a listener) and shared by every consumer; ``close`` ends it for good."""

    def __init__(self, open_feed: Callable[[], ChangeFeed]) -> None:
        self._open = open_feed
        self._relayed = RelayedFeed()

    def subscribe(self, wake: Wake) -> Callable[[], None]:
        unsubscribe = self._relayed.subscribe(wake)
        self._relayed.attach(self._open)
        return unsubscribe

    def close(self) -> None:
        self._relayed.close()

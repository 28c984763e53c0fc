"""A store opened while its server was unreachable: connected later, by the outbox.

Until ``connect`` succeeds every call raises ``DatabaseUnreachable`` at once (no connect
timeout per call: an agent's queued write is answered in milliseconds), so the service's
writes go to the outbox and its reads to the read cache. The outbox's thread calls
``connect`` when the server answers; from then on every call is the real store's.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, cast

from ltm_desktop.core.backend import MemoryStore, StoreHealth
from ltm_desktop.core.change_feed import ChangeFeed, RelayedFeed
from ltm_desktop.core.errors import DatabaseUnreachable


class DeferredStore:
    """Stands for the store ``opener`` opens, until it has opened it."""

    def __init__(self, opener: Callable[[], MemoryStore], location: str, problem: str) -> None:
        self._opener = opener
        self._location = location
        self._problem = problem
        self._inner: MemoryStore | None = None
        self._lock = threading.Lock()
        self._closed = False
        self._feed = RelayedFeed()

    def as_store(self) -> MemoryStore:
        """This object as the protocol the service takes (it answers every method)."""
        return cast(MemoryStore, self)

    @property
    def connected(self) -> bool:
        return self._inner is not None

    def connect(self) -> None:
        """Open the store now; raises DatabaseUnreachable (or another StorageError) when it
        cannot be."""
        with self._lock:
            if self._inner is not None or self._closed:
                return
            try:
                self._inner = self._opener()
            except DatabaseUnreachable as exc:
                self._problem = str(exc)
                raise
            inner = self._inner
        if self._feed.attach(inner.change_feed):
            self._feed.wake()  # whoever follows changes reads what was committed meanwhile

    def change_feed(self) -> ChangeFeed:
        """A feed that wakes its subscribers once the store connects, and then with its own
        feed's wakes."""
        return self._feed

    @property
    def location(self) -> str:
        return self._location if self._inner is None else self._inner.location

    @property
    def schema_version(self) -> int:
        return 0 if self._inner is None else self._inner.schema_version

    def health(self) -> StoreHealth:
        if self._inner is None:
            return StoreHealth(problems=(self._problem,))
        return self._inner.health()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            inner, self._inner = self._inner, None
        self._feed.close()
        if inner is not None:
            inner.close()

    def __getattr__(self, name: str) -> Any:
        inner = self._inner
        if inner is None:
            problem = self._problem

            def unreachable(*args: object, **kwargs: object) -> Any:
                raise DatabaseUnreachable(problem)

            return unreachable
        return getattr(inner, name)

"""A tiny publish/subscribe hub for committed changes.

Callbacks run on the writing thread, after the commit; a GUI wraps them in a
queued Qt signal, the API server forwards them to subscribed connections.
A failing subscriber is logged and never breaks the write that notified it.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable

from ltm_desktop.core.records import ChangeEvent

log = logging.getLogger(__name__)
Subscriber = Callable[[ChangeEvent], None]


class EventHub:
    def __init__(self) -> None:
        self._subscribers: list[Subscriber] = []
        self._lock = threading.Lock()

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Register ``callback``; returns a function that unsubscribes it."""
        with self._lock:
            self._subscribers.append(callback)

        def unsubscribe() -> None:
            with self._lock:
                if callback in self._subscribers:
                    self._subscribers.remove(callback)

        return unsubscribe

    def publish(self, events: Iterable[ChangeEvent]) -> None:
        with self._lock:
            subscribers = list(self._subscribers)
        for event in events:
            for callback in subscribers:
                try:
                    callback(event)
                except Exception:
                    log.exception("change subscriber %r failed", callback)

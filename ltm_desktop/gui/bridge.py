"""Follow every committed change, whoever made it, as one coalesced queued Qt signal.

In-process writes (the GUI's own, the agent API server's) arrive through
``service.events`` on the writing thread; writes by other processes and machines on the
same database wake the bridge through the service's change feed (``service.changes``:
PostgreSQL's ``NOTIFY``), and a poll timer remains as the fallback; either way they are
noticed by ``service.data_version()`` and read back with
``service.history.events_after()``. Both end up in ``ServiceBridge.changed``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from PySide6.QtCore import QObject, Qt, QTimer, Signal

from ltm_desktop.core.records import GLOBAL_PROJECT_ID, AuditEvent, ChangeEvent
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.tasks import TaskRunner

EVENTS_PAGE = 500
MAX_EVENTS_PER_POLL = 5_000


@dataclass(frozen=True)
class ChangeSet:
    """What changed since the last signal.

    Attributes:
        last_actor: memory id -> who changed it last (for "changed by claude-code").
        external: another process committed something.
        unaudited: something without an audit event may have changed (observations,
            use counts), so views of those should reload.
        everything: too much happened to say what; reload all views.
    """

    project_ids: frozenset[str] = frozenset()
    memory_ids: frozenset[str] = frozenset()
    last_actor: dict[str, str] = field(default_factory=dict)
    actions: frozenset[str] = frozenset()
    external: bool = False
    unaudited: bool = False
    everything: bool = False

    def touches(self, project_id: str | None) -> bool:
        return self.everything or project_id in self.project_ids

    def touches_precis(self, project_id: str | None) -> bool:
        """A scope's MEMORY.md also draws on global memories."""
        return self.touches(project_id) or GLOBAL_PROJECT_ID in self.project_ids

    def touches_memory(self, memory_id: str | None) -> bool:
        return self.everything or memory_id in self.memory_ids

    def merged(self, other: ChangeSet) -> ChangeSet:
        return ChangeSet(
            self.project_ids | other.project_ids,
            self.memory_ids | other.memory_ids,
            {**self.last_actor, **other.last_actor},
            self.actions | other.actions,
            self.external or other.external,
            self.unaudited or other.unaudited,
            self.everything or other.everything,
        )

    @classmethod
    def of(cls, events: Iterable[ChangeEvent | AuditEvent], *, external: bool = False) -> ChangeSet:
        events = list(events)
        return cls(
            frozenset(e.project_id for e in events),
            frozenset(e.memory_id for e in events),
            {e.memory_id: e.actor for e in events},
            frozenset(str(e.action) for e in events),
            external=external,
        )


class ServiceBridge(QObject):
    """Re-emits the service's change events (from any thread) as a queued, coalesced signal.

    Signals:
        changed(ChangeSet): committed changes, at most one signal per ``coalesce_ms``.
    """

    changed = Signal(object)
    _woken = Signal()
    _others_wrote = Signal()  # emitted on the change feed's thread

    def __init__(
        self,
        service: MemoryService,
        runner: TaskRunner,
        *,
        poll_ms: int = 500,
        coalesce_ms: int = 100,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._service = service
        self._runner = runner
        self._lock = threading.Lock()
        self._inbox: list[ChangeEvent] = []
        self._pending = ChangeSet()
        self._has_pending = False
        self._last_seq: int | None = None
        self._data_version: int | None = None
        self._polling = False
        self._poll_again = False  # the feed woke the bridge during a poll
        self._unfollow: Callable[[], None] | None = None
        self._woken.connect(self.on_woken, Qt.ConnectionType.QueuedConnection)
        self._others_wrote.connect(self.on_poll_due, Qt.ConnectionType.QueuedConnection)
        self._flush_timer = QTimer(self, singleShot=True, interval=coalesce_ms)
        self._flush_timer.timeout.connect(self.on_flush_due)
        self._poll_timer = QTimer(self, interval=poll_ms)
        self._poll_timer.timeout.connect(self.on_poll_due)
        self._unsubscribe: Callable[[], None] | None = service.events.subscribe(self._on_event)

    def start(self) -> None:
        """Remember where the audit log stands, then start polling for other processes."""
        service = self._service

        def baseline() -> tuple[int, int]:
            return service.history.last_event_seq(), service.data_version()

        self._polling = True
        self._runner.run(baseline, self.on_baseline, self.on_poll_failed)
        self._unfollow = service.changes.subscribe(self._others_wrote.emit)

    def stop(self) -> None:
        if self._unfollow is not None:
            self._unfollow()
            self._unfollow = None
        self._poll_timer.stop()
        self._flush_timer.stop()
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    # -- in-process events (any thread) ----------------------------------

    def _on_event(self, event: ChangeEvent) -> None:
        with self._lock:
            first = not self._inbox
            self._inbox.append(event)
        if first:
            self._woken.emit()

    def on_woken(self) -> None:
        with self._lock:
            events, self._inbox = self._inbox, []
        if events:
            self._add(ChangeSet.of(events))

    # -- other processes (polled) ----------------------------------------

    def on_baseline(self, result: tuple[int, int]) -> None:
        self._last_seq, self._data_version = result
        self._polling = False
        self._poll_timer.start()

    def on_poll_due(self) -> None:
        if self._polling or self._last_seq is None:
            self._poll_again = self._polling  # a wake during a poll is not lost
            return
        self._poll_again = False
        self._polling = True
        service, seq, known = self._service, self._last_seq, self._data_version

        def check() -> tuple[int, list[AuditEvent], bool]:
            version = service.data_version()
            if version == known:
                return version, [], False
            events: list[AuditEvent] = []
            cursor = seq
            while len(events) < MAX_EVENTS_PER_POLL:
                batch = service.history.events_after(cursor, EVENTS_PAGE)
                events += batch
                if len(batch) < EVENTS_PAGE:
                    return version, events, False
                cursor = batch[-1].seq
            return version, events, True

        self._runner.run(check, self.on_polled, self.on_poll_failed)

    def on_polled(self, result: tuple[int, list[AuditEvent], bool]) -> None:
        self._polling = False
        version, events, overflow = result
        if self._poll_again:
            self._others_wrote.emit()
        if version == self._data_version:
            return
        self._data_version = version
        if events:
            self._last_seq = max(self._last_seq or 0, events[-1].seq)
        found = ChangeSet.of(events, external=True)
        self._add(
            ChangeSet(
                found.project_ids,
                found.memory_ids,
                found.last_actor,
                found.actions,
                external=True,
                unaudited=True,
                everything=overflow,
            )
        )
        if overflow:  # skip what we did not read: "everything" reloads all views anyway
            self._polling = True
            self._runner.run(
                self._service.history.last_event_seq, self.on_skipped, self.on_poll_failed
            )

    def on_skipped(self, seq: int) -> None:
        self._polling = False
        self._last_seq = seq

    def on_poll_failed(self, exc: BaseException) -> None:
        """A failed poll (e.g. a locked database) is retried at the next tick, silently."""
        self._polling = False
        if self._last_seq is None:
            self._poll_timer.start()
            self._last_seq = 0

    # -- coalescing -------------------------------------------------------

    def _add(self, changes: ChangeSet) -> None:
        self._pending = self._pending.merged(changes)
        self._has_pending = True
        if not self._flush_timer.isActive():
            self._flush_timer.start()

    def on_flush_due(self) -> None:
        if self._has_pending:
            changes, self._pending, self._has_pending = self._pending, ChangeSet(), False
            self.changed.emit(changes)

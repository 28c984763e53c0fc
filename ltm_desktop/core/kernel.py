"""The write kernel: the one place a write's ritual is written down.

Every write of the core goes through it: take the single writer's lock, run in one store
transaction, and once it has committed (and the lock is released) bring the affected
MEMORY.md files and vectors up to date and publish the change events. The feature
services record what they changed on the ``Write`` they are handed; they never take the
lock, open a transaction or publish themselves.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

from ltm_desktop.core.actors import WhoAmI
from ltm_desktop.core.backend import AuditEntry, MemoryStore, WriteTxn
from ltm_desktop.core.errors import Conflict
from ltm_desktop.core.events import EventHub
from ltm_desktop.core.records import ChangeEvent, Memory
from ltm_desktop.core.uses import UseCounter


class FileViews(Protocol):
    def after_write(self, changed: list[Memory]) -> None: ...


class Wakeable(Protocol):
    def wake(self) -> None: ...


class AfterWrite:
    """What follows a committed write: the MEMORY.md files that show the changed scopes
    (``core.memory_md.sync``), and background work such as vectors (the backfill)."""

    def __init__(self, views: FileViews, backfill: Wakeable) -> None:
        self._views = views
        self._backfill = backfill

    def __call__(self, changed: list[Memory]) -> None:
        """Never raises: a file that cannot be written is reported and retried."""
        if changed:
            self._views.after_write(changed)
            self._backfill.wake()  # an edit, import or restore may have left it work

    def wake_backfill(self) -> None:
        self._backfill.wake()


@dataclass
class Write:
    """One write in progress: its open transaction and what it changed so far."""

    txn: WriteTxn
    now: float
    changed: list[Memory] = field(default_factory=list)
    events: list[ChangeEvent] = field(default_factory=list)
    wake_backfill: bool = False
    committed: list[Callable[[], None]] = field(default_factory=list)

    def record(self, memory: Memory, action: str, actor: str, *, rewrite: bool = True) -> None:
        """``memory`` changed by ``action``: announce it, and (``rewrite``) refresh the
        MEMORY.md files that show its scope."""
        self.events.append(ChangeEvent(memory.id, memory.project_id, action, actor, self.now))
        if rewrite:
            self.changed.append(memory)

    def record_all(self, memories: Iterable[Memory], action: str, actor: str) -> None:
        for memory in memories:
            self.record(memory, action, actor)

    def announce(self, event: ChangeEvent) -> None:
        """An event built by the caller (its own time or action), with no file to rewrite."""
        self.events.append(event)

    def then(self, step: Callable[[], None]) -> None:
        """Run ``step`` once the transaction has committed, still under the writer's lock
        (store work that is its own transaction: registering a project, scrubbing)."""
        self.committed.append(step)

    def touch(self, memories: Iterable[Memory]) -> None:
        """Memories whose MEMORY.md must be rewritten, without an event of their own."""
        self.changed.extend(memories)


class StampedTxn:
    """A store transaction whose audit events carry the writing process's person and
    machine (``core.actors``): the one place they are put on events. Everything else is
    the store's transaction itself."""

    def __init__(self, txn: WriteTxn, identity: WhoAmI) -> None:
        self._txn = txn
        self._identity = identity

    def record(self, entry: AuditEntry) -> None:
        self._txn.record(self._identity.stamp(entry))

    def record_all(self, entries: Sequence[AuditEntry]) -> None:
        self._txn.record_all([self._identity.stamp(entry) for entry in entries])

    def __getattr__(self, name: str) -> Any:
        return getattr(self._txn, name)


class WriteKernel:
    """The single writer: lock, transaction, after-write work and publishing, once."""

    def __init__(
        self,
        store: MemoryStore,
        *,
        lock: threading.RLock,
        clock: Callable[[], float],
        events: EventHub,
        uses: UseCounter,
        after_write: AfterWrite,
        identity: WhoAmI | None = None,
    ) -> None:
        """``identity``: who this process writes as (None: events without a person or
        machine, as before they were recorded: a test's bare service)."""
        self.store = store
        self.identity = identity
        self.events = events
        self.uses = uses
        self._lock = lock
        self._clock = clock
        self._after_write = after_write

    def now(self) -> float:
        return self._clock()

    @contextmanager
    def write(self) -> Iterator[Write]:
        """One write transaction: committed when the block ends, rolled back if it raises.

        After the commit, with the lock released, the recorded memories' MEMORY.md files
        are rewritten and the recorded events published (in that order: a subscriber
        that reads MEMORY.md on an event finds it queued)."""
        with self.locked():
            with self.store.write() as txn:
                stamped = txn if self.identity is None else StampedTxn(txn, self.identity)
                write = Write(stamped, self.now())
                yield write
            for step in write.committed:  # committed: the lock is still held
                step()
        self.settle(write)

    def settle(self, write: Write) -> None:
        """The after-commit half of ``write``, for a caller that commits in batches."""
        self._after_write(write.changed)
        if write.wake_backfill and not write.changed:
            self._after_write.wake_backfill()
        self.events.publish(write.events)

    @contextmanager
    def locked(self) -> Iterator[None]:
        """The writer's lock alone, for a store write that is its own transaction; a
        conflict's current memory shows the use counts not yet written, like a read."""
        with self._lock:
            try:
                yield
            except Conflict as exc:
                if exc.current is not None:
                    exc.current = self.uses.overlay(exc.current)
                raise

    def publish(self, events: list[ChangeEvent]) -> None:
        self.events.publish(events)

    def wake_backfill(self) -> None:
        self._after_write.wake_backfill()

    def overlay(self, memory: Memory) -> Memory:
        """``memory`` as a reader sees it: with the use counts not yet written."""
        return self.uses.overlay(memory)

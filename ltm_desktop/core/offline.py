"""What the service knows of working offline: the seam between the core and the outbox.

When the shared database (PostgreSQL) cannot be reached, a write is kept in this
machine's outbox (``ltm_desktop.outbox``) and replayed when the server is back; reads are
answered from a local mirror of the scopes this machine used. The service holds an
``Offline`` (``service.offline``); the composition root sets the outbox's, and every other
process (SQLite, tests) keeps ``NoOffline``, which never queues anything.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

from ltm_desktop.core.records import Memory, Project


class QueuedKind(StrEnum):
    """The writes the outbox keeps (the API methods of the same names)."""

    ADD = "memory.add"
    UPDATE = "memory.update"
    REMOVE = "memory.remove"
    RESTORE = "memory.restore"


@dataclass(frozen=True, slots=True)
class QueuedWrite:
    """One write waiting in the outbox, with what its writer saw.

    ``fields``: an add's draft fields, or an update's changes (empty for remove/restore).
    ``base_version``: the memory's ``updated_at`` the writer saw (the compare-and-swap
    of the replay), None for a memory added offline itself. ``memory_id`` is minted here
    for an add and stays the memory's id after the replay.
    """

    seq: int
    kind: QueuedKind
    memory_id: str
    project_id: str
    actor: str
    queued_at: float
    fields: dict[str, Any] = field(default_factory=dict)
    cwd: str | None = None
    base_version: float | None = None
    # an earlier queued write touches the same memory: the base is the version that
    # write leaves once replayed (None while it has not been)
    follows: bool = False


@dataclass(frozen=True, slots=True)
class OfflineStatus:
    """For ``status``, ``health`` and the app's status bar."""

    offline: bool = False  # the database cannot be reached now
    waiting: int = 0  # writes in the outbox
    oldest_at: float | None = None  # when the oldest waiting write was queued
    conflicts: int = 0  # replayed writes kept aside for a person (see the outbox)
    problem: str | None = None  # why the database is unreachable (no password in it)

    def describe(self, now: float | None = None) -> str:
        """ "offline — 3 changes waiting (oldest 2 min)", or "" when there is nothing to say."""
        if not self.offline and not self.waiting:
            return ""
        waiting = f"{self.waiting} change{'' if self.waiting == 1 else 's'} waiting"
        state = "offline" if self.offline else "replaying"
        text = f"{state} — {waiting}"
        if self.oldest_at is not None:
            age = max(0.0, (time.time() if now is None else now) - self.oldest_at)
            text += f" (oldest {describe_age(age)})"
        return text


def describe_age(seconds: float) -> str:
    """ "12 s", "4 min", "3 h", "2 days"."""
    if seconds < 90:
        return f"{int(seconds)} s"
    if seconds < 90 * 60:
        return f"{int(seconds // 60)} min"
    if seconds < 36 * 3600:
        return f"{int(seconds // 3600)} h"
    return f"{int(seconds // 86400)} days"


class Offline(Protocol):
    """The outbox and read cache of this machine, as the offline answers and the app use
    them."""

    @property
    def available(self) -> bool:
        """False: this process keeps no outbox (writes fail as before)."""
        ...

    def status(self) -> OfflineStatus: ...

    def is_offline(self) -> bool:
        """The database could not be reached when last tried (cheap: no file read)."""
        ...

    def queueing(self) -> bool:
        """Writes go to the outbox now: the database is unreachable, or earlier writes
        still wait (a new write must not overtake them)."""
        ...

    def unreachable(self, reason: str) -> None:
        """A call found the database unreachable: go offline until it answers again."""
        ...

    def queue(self, write: QueuedWrite) -> QueuedWrite:
        """Append ``write`` (its ``seq`` is given here) durably; returns it once fsynced."""
        ...

    def queued(self, project_id: str | None = None) -> list[QueuedWrite]:
        """The waiting writes in order (of one scope, or all)."""
        ...

    def cached(self, project_id: str) -> list[Memory]:
        """The active memories of a scope as last mirrored (stale by nature)."""
        ...

    def cached_memory(self, memory_id: str) -> Memory | None: ...

    def cached_projects(self) -> list[Project]:
        """The mirrored scopes' rows (what the app lists while offline)."""
        ...

    def seen(self, project_id: str) -> None:
        """A scope was used here: keep it in the mirror."""
        ...

    def close(self) -> None:
        """Stop replaying (what waits stays in the outbox for the next start)."""
        ...


class NoOffline:
    """No outbox: SQLite (always reachable) and one-shot commands."""

    available = False

    def status(self) -> OfflineStatus:
        return OfflineStatus()

    def is_offline(self) -> bool:
        return False

    def queueing(self) -> bool:
        return False

    def unreachable(self, reason: str) -> None:
        pass

    def queue(self, write: QueuedWrite) -> QueuedWrite:
        raise AssertionError("no outbox in this process")

    def queued(self, project_id: str | None = None) -> list[QueuedWrite]:
        return []

    def cached(self, project_id: str) -> list[Memory]:
        return []

    def cached_memory(self, memory_id: str) -> Memory | None:
        return None

    def cached_projects(self) -> list[Project]:
        return []

    def seen(self, project_id: str) -> None:
        pass

    def close(self) -> None:
        pass

"""What changed in a project's memory since a point in its audit history.

A hooked agent gets MEMORY.md once, at session start; a memory another agent or the
person saves meanwhile would otherwise reach it only in the next session. The
user-prompt hook asks for the changes since the audit sequence number it last saw and
adds them to the turn's context, so each change is told once.

Cost does not grow with the data: only the newest ``WINDOW`` events of each scope are
read (by the history index), and the memories they name fetched in one query. More
changes than that are counted as "more", never listed late.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from ltm_desktop.core.injection import is_flagged
from ltm_desktop.core.records import GLOBAL_PROJECT_ID, AuditAction, AuditEvent, Memory

WINDOW = 200  # newest events read per scope
MAX_CHANGES = 50


class ChangeKind(StrEnum):
    NEW = "new"  # created, imported, restored, approved, copied or moved here
    EDITED = "edited"
    REMOVED = "removed"  # to the trash, superseded or expired


# Events that change what a memory says or whether it is there. A deduplicated add only
# refreshes the memory, a review mark changes nothing the model reads.
_NEW = frozenset(
    {
        AuditAction.CREATED,
        AuditAction.IMPORTED,
        AuditAction.RESTORED,
        AuditAction.APPROVED,
        AuditAction.COPIED,
        AuditAction.MOVED,
    }
)
_COUNTED = _NEW | {
    AuditAction.UPDATED,
    AuditAction.REMOVED,
    AuditAction.SUPERSEDED,
    AuditAction.EXPIRED,
}


@dataclass(frozen=True, slots=True)
class MemoryChange:
    kind: ChangeKind
    seq: int  # the newest event of the memory
    actor: str
    memory: Memory  # as it is now


@dataclass(frozen=True, slots=True)
class ScopeChanges:
    """The changes after ``since`` up to ``head``, newest first; ``more`` changed memories
    were left out (over the limit, or older than the window)."""

    head: int
    changes: tuple[MemoryChange, ...] = ()
    more: int = 0


class ChangeSource(Protocol):
    """What ``changes_since`` reads (the service's history and memory reads)."""

    def last_event_seq(self) -> int: ...
    def project_history(self, project_id: str, *, limit: int = ...) -> list[AuditEvent]: ...
    def get_many(self, memory_ids: Sequence[str]) -> dict[str, Memory]: ...


def changes_since(
    source: ChangeSource,
    project_id: str,
    since: int | None,
    *,
    limit: int = MAX_CHANGES,
    include_global: bool = True,
    include_flagged: bool = False,
) -> ScopeChanges:
    """The memories of ``project_id`` (and global) changed after audit seq ``since``.

    ``since`` None (or ahead of the history, e.g. another database): only the head, the
    cursor to ask with next time. The head is read first, so a change committed while
    this reads is told now or next time, never lost. Flagged memories (they read like
    instructions to the model) stay out, as they do from MEMORY.md.
    """
    head = source.last_event_seq()
    if since is None or since >= head:
        return ScopeChanges(head)
    scopes = [project_id]
    if include_global and project_id != GLOBAL_PROJECT_ID:
        scopes.append(GLOBAL_PROJECT_ID)
    newest: dict[str, list[AuditEvent]] = {}
    unseen = 0  # a full window still newer than since: older changes are not read
    for scope in scopes:
        events = source.project_history(scope, limit=WINDOW)
        if len(events) == WINDOW and events[-1].seq > since + 1:
            unseen += 1
        for event in events:
            if since < event.seq <= head and event.action in _COUNTED:
                newest.setdefault(event.memory_id, []).append(event)
    found = source.get_many(list(newest))
    changes = [
        _change(events, found[memory_id])
        for memory_id, events in newest.items()
        if memory_id in found and (include_flagged or not is_flagged(found[memory_id]))
    ]
    changes.sort(key=lambda c: c.seq, reverse=True)
    return ScopeChanges(head, tuple(changes[:limit]), max(0, len(changes) - limit) + unseen)


def _change(events: list[AuditEvent], memory: Memory) -> MemoryChange:
    """``events``: the memory's counted events after the cursor, newest first."""
    latest = events[0]
    if memory.disabled:
        kind = ChangeKind.REMOVED
    elif any(e.action in _NEW for e in events):
        kind = ChangeKind.NEW
    else:
        kind = ChangeKind.EDITED
    return MemoryChange(kind, latest.seq, latest.actor, memory)

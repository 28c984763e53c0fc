"""What changed in a project's memory since a point in its audit history.

A hooked agent gets MEMORY.md once, at session start; a memory another agent or the
person saves meanwhile would otherwise reach it only in the next session. The
user-prompt hook asks for the changes since the audit sequence number it last saw and
adds them to the turn's context, so each change is told once.

Cost does not grow with the data: each scope's history is read newest first, a page at a
time, back to the cursor or at most ``MAX_EVENTS`` events (by the history index), and the
memories named are fetched in one query. Past that bound the answer says it is
``truncated``: the changes are never listed late, and never silently dropped.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from ltm_desktop.core.privacy.injection import is_flagged
from ltm_desktop.core.projects.ambient import AmbientScopes
from ltm_desktop.core.records import AuditAction, AuditEvent, Memory

PAGE = 200  # events read at a time, per scope
MAX_EVENTS = 2_000  # events read per scope at most, whatever else happened meanwhile
MAX_CHANGES = 50
MEMORY_PREFIX = "mem_"  # events on proposals (prop_) and runs (run_) are no memory's


class ChangeKind(StrEnum):
    NEW = "new"  # created, imported or restored (a move's copy is created in its scope)
    EDITED = "edited"  # its text or fields changed, or a person approved it
    REMOVED = "removed"  # to the trash, superseded, expired, moved away or erased


# Events that change what the model would read of a memory. A deduplicated add only
# refreshes it; a review mark changes nothing the model reads; a copy leaves its source
# as it was (the copy is created in its own scope).
_NEW = frozenset(
    {AuditAction.CREATED, AuditAction.IMPORTED, AuditAction.RESTORED},
)
_COUNTED = _NEW | {
    AuditAction.UPDATED,
    AuditAction.APPROVED,
    AuditAction.REMOVED,
    AuditAction.SUPERSEDED,
    AuditAction.EXPIRED,
    AuditAction.MOVED,
    AuditAction.ERASED,
}


@dataclass(frozen=True, slots=True)
class MemoryChange:
    kind: ChangeKind
    seq: int  # the newest event of the memory
    actor: str
    memory_id: str
    memory: Memory | None  # as it is now; None: erased (nothing of it is left to tell)
    withheld: bool = False  # flagged as reading like an instruction: its text not told
    person: str | None = None  # who made the newest event (None: before it was recorded)
    machine: str | None = None  # on which machine


@dataclass(frozen=True, slots=True)
class ScopeChanges:
    """The changes after ``since`` up to ``head``, newest first; ``more`` changed memories
    were left out over the limit, and ``truncated`` says that older changes were not read
    at all (more than MAX_EVENTS events in a scope since the cursor)."""

    head: int
    changes: tuple[MemoryChange, ...] = ()
    more: int = 0
    truncated: bool = False


class ChangeSource(Protocol):
    """What ``changes_since`` reads of the history (``MemoryService.history`` is one)."""

    def last_event_seq(self) -> int: ...
    def project(
        self, project_id: str, *, limit: int = ..., before_seq: int | None = ...
    ) -> list[AuditEvent]: ...


MemoryReader = Callable[[Sequence[str]], dict[str, Memory]]  # ``MemoryService.get_many``


def changes_since(
    source: ChangeSource,
    get_many: MemoryReader,
    project_id: str,
    since: int | None,
    *,
    limit: int = MAX_CHANGES,
    include_global: bool = True,
    include_flagged: bool = False,
    ambient: AmbientScopes | None = None,
) -> ScopeChanges:
    """The memories of ``project_id`` (and global) changed after audit seq ``since``.

    ``since`` None (or ahead of the history, e.g. another database): only the head, the
    cursor to ask with next time. The head is read first, so a change committed while
    this reads is told now or next time, never lost. A memory flagged as reading like an
    instruction to the model is not told when new (it never reached the model); edited,
    it is told without its text (``withheld``), so the model stops relying on what it
    was shown. A memory both created and removed since the cursor is not told at all.
    """
    head = source.last_event_seq()
    if since is None or since >= head:
        return ScopeChanges(head)
    scopes = (ambient or AmbientScopes.shared()).with_ambient(project_id, include_global)
    newest: dict[str, list[AuditEvent]] = {}
    truncated = False
    for scope in scopes:
        events, complete = _events_after(source, scope, since, head)
        truncated = truncated or not complete
        for event in events:
            if event.action in _COUNTED and event.memory_id.startswith(MEMORY_PREFIX):
                newest.setdefault(event.memory_id, []).append(event)
    found = get_many(list(newest))
    changes = [
        change
        for memory_id, events in newest.items()
        if (change := _change(memory_id, events, found.get(memory_id), include_flagged))
    ]
    changes.sort(key=lambda c: c.seq, reverse=True)
    return ScopeChanges(
        head, tuple(changes[:limit]), max(0, len(changes) - limit), truncated=truncated
    )


def _events_after(
    source: ChangeSource, scope: str, since: int, head: int
) -> tuple[list[AuditEvent], bool]:
    """The scope's events in (since, head], newest first, and whether all were read."""
    found: list[AuditEvent] = []
    before: int | None = head + 1
    while len(found) < MAX_EVENTS:
        page = source.project(scope, limit=PAGE, before_seq=before)
        found.extend(e for e in page if since < e.seq <= head)
        if len(page) < PAGE or page[-1].seq <= since + 1:
            return found, True
        before = page[-1].seq
    return found, False


def _change(
    memory_id: str, events: list[AuditEvent], memory: Memory | None, include_flagged: bool
) -> MemoryChange | None:
    """``events``: the memory's counted events after the cursor, newest first."""
    latest = events[0]
    created = any(e.action in _NEW for e in events)
    if memory is None:  # erased: its row is gone
        if created:
            return None
        return MemoryChange(
            ChangeKind.REMOVED,
            latest.seq,
            latest.actor,
            memory_id,
            None,
            person=latest.person,
            machine=latest.machine,
        )
    withheld = not include_flagged and is_flagged(memory)
    if memory.disabled:
        if created:  # came and went between two turns: the model never saw it
            return None
        kind = ChangeKind.REMOVED
    elif created:
        if withheld:  # held back from MEMORY.md too, until a person approves it
            return None
        kind = ChangeKind.NEW
    else:
        kind = ChangeKind.EDITED
    return MemoryChange(
        kind,
        latest.seq,
        latest.actor,
        memory_id,
        memory,
        withheld,
        person=latest.person,
        machine=latest.machine,
    )

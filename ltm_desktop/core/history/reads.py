"""Reading what happened in a scope: the audit history (what changed, when, and by whom),
``MemoryService.history``."""

from __future__ import annotations

from collections.abc import Sequence

from ltm_desktop.core import rules
from ltm_desktop.core.backend import MemoryStore
from ltm_desktop.core.listing import check_page
from ltm_desktop.core.records import AuditAction, AuditEvent


class HistoryReads:
    """The audit history's reads."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store

    def memory(self, memory_id: str) -> list[AuditEvent]:
        return self.store.memory_history(rules.check_text(memory_id, "id"))

    def project(
        self,
        project_id: str,
        *,
        limit: int = 200,
        before_seq: int | None = None,
        actor: str | None = None,
        offset: int = 0,
        person: str | None = None,
    ) -> list[AuditEvent]:
        """The scope's events (of one actor, of one person), newest first: a page at
        ``offset`` (random access, as the Activity tab reads it) or older than
        ``before_seq`` (keyset)."""
        check_page(limit, offset)
        return self.store.project_history(project_id, limit, before_seq, actor, offset, person)

    def count_project(
        self, project_id: str, actor: str | None = None, person: str | None = None
    ) -> int:
        """How many events ``project`` pages through."""
        return self.store.count_history(project_id, actor, person)

    def actors(self, project_id: str) -> list[str]:
        """Every agent with an event in the scope, in name order (the Activity tab's filter)."""
        return self.store.history_actors(project_id)

    def people(self, project_id: str) -> list[str]:
        """Every person with an event in the scope, in name order (the per-person filter)."""
        return self.store.history_people(project_id)

    def events_after(self, seq: int, limit: int = 500) -> list[AuditEvent]:
        """Audit events newer than ``seq``: how a window follows other processes' writes."""
        return self.store.events_after(seq, limit)

    def last_event_seq(self) -> int:
        return self.store.last_event_seq()

    def creation_events(self, memory_ids: Sequence[str]) -> dict[str, AuditEvent]:
        """The event that brought each memory in (created or imported): which agent,
        person and machine it came from (the list's "New" filter names them)."""
        actions = [AuditAction.CREATED.value, AuditAction.IMPORTED.value]
        return {e.memory_id: e for e in self.store.last_events(memory_ids, actions)}

    def removal_events(self, memory_ids: Sequence[str]) -> dict[str, AuditEvent]:
        """Why each memory is in the Trash: its newest removed/superseded/expired/rejected
        event."""
        actions = [
            AuditAction.REMOVED,
            AuditAction.SUPERSEDED,
            AuditAction.EXPIRED,
            AuditAction.REJECTED,
        ]
        found = self.store.last_events(memory_ids, [a.value for a in actions])
        return {event.memory_id: event for event in found}

"""Reading the audit history: what changed, when, and by whom (part of MemoryService)."""

from __future__ import annotations

from collections.abc import Sequence

from ltm_desktop.core import rules
from ltm_desktop.core.backend import MemoryStore
from ltm_desktop.core.records import AuditAction, AuditEvent


class HistoryReads:
    """The service's audit-history reads; the service provides ``store``."""

    store: MemoryStore

    def history(self, memory_id: str) -> list[AuditEvent]:
        return self.store.memory_history(rules.check_text(memory_id, "id"))

    def project_history(
        self,
        project_id: str,
        *,
        limit: int = 200,
        before_seq: int | None = None,
        actor: str | None = None,
    ) -> list[AuditEvent]:
        return self.store.project_history(project_id, limit, before_seq, actor)

    def events_after(self, seq: int, limit: int = 500) -> list[AuditEvent]:
        """Audit events newer than ``seq``: how a window follows other processes' writes."""
        return self.store.events_after(seq, limit)

    def last_event_seq(self) -> int:
        return self.store.last_event_seq()

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

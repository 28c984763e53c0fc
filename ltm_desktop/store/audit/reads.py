"""The audit history's reads, for ``SqliteStore`` (kept apart: it is one job)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from ltm_desktop.core.records import AuditEvent
from ltm_desktop.store import memory_reads as reads
from ltm_desktop.store import memory_writes as writes
from ltm_desktop.store.scoped_reader import ScopedReader


class AuditReads:
    """Who changed what, when: per memory, per scope, and since a point in the log."""

    def __init__(self, reader: ScopedReader) -> None:
        self._reader = reader

    def memory_history(self, memory_id: str) -> list[AuditEvent]:
        def work(conn: sqlite3.Connection) -> list[AuditEvent]:
            events = reads.memory_history(conn, memory_id)
            if not events:
                writes.load_memory(conn, memory_id)  # raises NotFound for unknown ids
            return events

        return self._reader.read(work)

    def project_history(
        self,
        project_id: str,
        limit: int,
        before_seq: int | None,
        actor: str | None,
        offset: int,
        person: str | None = None,
    ) -> list[AuditEvent]:
        return self._reader.read_scope(
            project_id,
            lambda c, pk: reads.project_history(
                c,
                pk,
                limit=limit,
                offset=offset,
                before_seq=before_seq,
                actor=actor,
                person=person,
            ),
            [],
        )

    def count_history(self, project_id: str, actor: str | None, person: str | None = None) -> int:
        return self._reader.read_scope(
            project_id, lambda c, pk: reads.count_history(c, pk, actor, person), 0
        )

    def history_actors(self, project_id: str) -> list[str]:
        return self._reader.read_scope(project_id, lambda c, pk: reads.history_actors(c, pk), [])

    def history_people(self, project_id: str) -> list[str]:
        return self._reader.read_scope(project_id, lambda c, pk: reads.history_people(c, pk), [])

    def last_events(self, memory_ids: Sequence[str], actions: Sequence[str]) -> list[AuditEvent]:
        return self._reader.read(lambda c: reads.last_events(c, list(memory_ids), list(actions)))

    def events_after(self, seq: int, limit: int) -> list[AuditEvent]:
        return self._reader.read(lambda c: reads.events_after(c, seq, limit))

    def last_event_seq(self) -> int:
        return self._reader.read(
            lambda c: int(c.execute("SELECT coalesce(max(seq), 0) FROM audit").fetchone()[0])
        )

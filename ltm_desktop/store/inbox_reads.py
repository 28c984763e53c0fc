"""The review inbox's reads (proposals, unreviewed memories, extraction runs), for
``SqliteStore`` (kept apart: it is one job)."""

from __future__ import annotations

import sqlite3

from ltm_desktop.core.inbox.proposals import ExtractionRun, Proposal
from ltm_desktop.core.records import Memory
from ltm_desktop.store import inbox
from ltm_desktop.store.scoped_reader import ScopedReader


class InboxReads:
    """What waits for a person's review, per scope or in every scope (``None``)."""

    def __init__(self, reader: ScopedReader) -> None:
        self._reader = reader

    def _scope_key(
        self, conn: sqlite3.Connection, project_id: str | None
    ) -> tuple[bool, int | None]:
        """(whether the scope has rows at all, its key: None meaning every scope)."""
        if project_id is None:
            return True, None
        pk = self._reader.pk(conn, project_id)
        return pk is not None, pk

    def get_proposal(self, proposal_id: str) -> Proposal:
        return self._reader.read(lambda c: inbox.load_proposal(c, proposal_id)[1])

    def list_proposals(
        self, project_id: str | None, state: str, limit: int, offset: int
    ) -> list[Proposal]:
        def work(conn: sqlite3.Connection) -> list[Proposal]:
            known, pk = self._scope_key(conn, project_id)
            if not known:
                return []
            return inbox.list_proposals(conn, pk, state, limit, offset)

        return self._reader.read(work)

    def merge_proposals(self, project_id: str, state: str) -> list[Proposal]:
        def work(conn: sqlite3.Connection) -> list[Proposal]:
            pk = self._reader.pk(conn, project_id)
            return [] if pk is None else inbox.merge_proposals(conn, pk, state)

        return self._reader.read(work)

    def list_unreviewed(
        self, project_id: str | None, limit: int, offset: int, now: float
    ) -> list[Memory]:
        def work(conn: sqlite3.Connection) -> list[Memory]:
            known, pk = self._scope_key(conn, project_id)
            if not known:
                return []
            return inbox.list_unreviewed(conn, pk, limit, offset, now)

        return self._reader.read(work)

    def inbox_counts(self, now: float) -> dict[str, int]:
        return self._reader.read(lambda c: inbox.inbox_counts(c, now))

    def list_runs(self, project_id: str | None, limit: int) -> list[ExtractionRun]:
        def work(conn: sqlite3.Connection) -> list[ExtractionRun]:
            known, pk = self._scope_key(conn, project_id)
            if not known:
                return []
            return inbox.list_runs(conn, pk, limit)

        return self._reader.read(work)

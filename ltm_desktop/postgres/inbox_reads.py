"""The review inbox's reads (proposals, unreviewed memories, extraction runs), for
``PostgresStore`` (kept apart: it is one job). Each is one read on a pooled connection."""

from __future__ import annotations

from ltm_desktop.core.inbox.proposals import ExtractionRun, Proposal
from ltm_desktop.core.records import Memory
from ltm_desktop.postgres import inbox
from ltm_desktop.postgres.conn import Conn
from ltm_desktop.postgres.database import PgDatabase
from ltm_desktop.postgres.scopes import ScopeKeys


class PgInboxReads:
    """What waits for a person's review, per scope or in every scope (``None``)."""

    def __init__(self, db: PgDatabase, keys: ScopeKeys) -> None:
        self._db = db
        self._keys = keys

    def _scope_key(self, conn: Conn, project_id: str | None) -> tuple[bool, int | None]:
        """(whether the scope has rows at all, its key: None meaning every scope)."""
        if project_id is None:
            return True, None
        pk = self._keys.pk(conn, project_id)
        return pk is not None, pk

    def get_proposal(self, proposal_id: str) -> Proposal:
        return self._db.read(lambda c: inbox.load_proposal(c, proposal_id)[1])

    def list_proposals(
        self, project_id: str | None, state: str, limit: int, offset: int
    ) -> list[Proposal]:
        def work(conn: Conn) -> list[Proposal]:
            known, pk = self._scope_key(conn, project_id)
            if not known:
                return []
            return inbox.list_proposals(conn, pk, state, limit, offset)

        return self._db.read(work)

    def merge_proposals(self, project_id: str, state: str) -> list[Proposal]:
        def work(conn: Conn) -> list[Proposal]:
            pk = self._keys.pk(conn, project_id)
            return [] if pk is None else inbox.merge_proposals(conn, pk, state)

        return self._db.read(work)

    def list_unreviewed(
        self, project_id: str | None, limit: int, offset: int, now: float
    ) -> list[Memory]:
        def work(conn: Conn) -> list[Memory]:
            known, pk = self._scope_key(conn, project_id)
            if not known:
                return []
            return inbox.list_unreviewed(conn, pk, limit, offset, now)

        return self._db.read(work)

    def inbox_counts(self, now: float) -> dict[str, int]:
        return self._db.read(lambda c: inbox.inbox_counts(c, now))

    def list_runs(self, project_id: str | None, limit: int) -> list[ExtractionRun]:
        def work(conn: Conn) -> list[ExtractionRun]:
            known, pk = self._scope_key(conn, project_id)
            if not known:
                return []
            return inbox.list_runs(conn, pk, limit)

        return self._db.read(work)

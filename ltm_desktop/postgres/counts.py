"""Per-project counts, for ``PostgresStore``: active memories, and for the app's projects
sidebar stale candidates and memories agents added since the person last looked
(``store.count_reads``; the queries of ``store.memory_reads``)."""

from __future__ import annotations

from typing import Any

from ltm_desktop.core.records import GUI_ACTOR
from ltm_desktop.postgres.database import PgDatabase
from ltm_desktop.postgres.scopes import ScopeKeys

_NOT_EXPIRED = "(m.expires_at IS NULL OR m.expires_at > %s)"
# A stale candidate (as ``memory_reads.stale_memories`` finds them): not removed, not
# important, never used, and neither updated nor reviewed since the cutoff.
STALE_CLAUSE = (
    "m.disabled = 0 AND m.importance <= %s AND m.use_count = 0 "
    "AND GREATEST(m.updated_at, coalesce(m.reviewed_at, 0)) < %s"
)


class PgCounts:
    """Counts per project id (scopes without a counted memory are left out)."""

    def __init__(self, db: PgDatabase, keys: ScopeKeys) -> None:
        self._db = db
        self._keys = keys

    def _per_scope(self, where: str, params: tuple[Any, ...]) -> dict[str, int]:
        sql = (
            "SELECT p.project_id, n FROM (SELECT m.project_pk, count(*) AS n "
            f"FROM memories AS m WHERE {where} GROUP BY m.project_pk) AS c "
            "JOIN projects AS p ON p.pk = c.project_pk"
        )
        rows = self._db.read(lambda conn: conn.execute(sql, params).fetchall())
        return {str(project_id): int(n) for project_id, n in rows}

    def active_counts(self, now: float) -> dict[str, int]:
        """Active memories per scope."""
        return self._per_scope(f"m.disabled = 0 AND {_NOT_EXPIRED}", (now,))

    def new_counts(self, since: float, now: float) -> dict[str, int]:
        """Active memories agents (not GUI_ACTOR) created after ``since``, per scope."""
        return self._per_scope(
            f"m.disabled = 0 AND m.created_at > %s AND m.source != %s AND {_NOT_EXPIRED}",
            (since, GUI_ACTOR, now),
        )

    def stale_counts(self, max_importance: int, cutoff: float, now: float) -> dict[str, int]:
        """Stale candidates per scope."""
        return self._per_scope(f"{STALE_CLAUSE} AND {_NOT_EXPIRED}", (max_importance, cutoff, now))

"""Scopes' keys: a project id's ``projects.pk``, found once per process (a scope's row is
never deleted, so a pk once seen stays right) and made on a scope's first write."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from ltm_desktop.postgres.conn import Conn


class ScopeKeys:
    """Project id -> pk, shared by every connection of one store."""

    def __init__(self) -> None:
        self._pks: dict[str, int] = {}
        self._lock = threading.Lock()

    def pk(self, conn: Conn, project_id: str, *, remember: bool = True) -> int | None:
        """The scope's pk, or None if it has never been written to. A write transaction
        passes ``remember=False``: a row it sees may still be rolled back."""
        with self._lock:
            known = self._pks.get(project_id)
        if known is not None:
            return known
        row = conn.execute(
            "SELECT pk FROM projects WHERE project_id = %s", (project_id,)
        ).fetchone()
        if row is None:
            return None
        pk = int(row[0])
        if remember:
            with self._lock:
                self._pks[project_id] = pk
        return pk

    def pks(self, conn: Conn, project_ids: Sequence[str]) -> list[int]:
        """The pks of the scopes that exist, in the order given."""
        found = [self.pk(conn, project_id) for project_id in project_ids]
        return [pk for pk in found if pk is not None]

    def writable_pk(self, conn: Conn, project_id: str, now: float) -> int:
        """In a write transaction: the scope's pk, making its row on its first write (not
        remembered until the transaction commits, which ``pk`` then finds)."""
        known = self.pk(conn, project_id, remember=False)
        if known is not None:
            return known
        row = conn.execute(
            "INSERT INTO projects (project_id, path, name, created_at) VALUES (%s, NULL, %s, %s) "
            "ON CONFLICT (project_id) DO UPDATE SET project_id = excluded.project_id "
            "RETURNING pk",
            (project_id, project_id, now),
        ).fetchone()
        assert row is not None  # RETURNING always gives the row
        return int(row[0])

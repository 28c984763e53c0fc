"""ScopedReader: the store's reads, and the scopes' keys they are asked by.

Every read runs on this thread's reading connection (``readers``). The core names a
scope by its project id; the tables key it by ``projects.pk``, looked up once and kept.
``SqliteStore`` and its read groups (``audit.reads``, ``inbox_reads``, ``count_reads``,
``overview_reads``) are built with one ScopedReader and share it, cache included; a
write looks its scopes' keys up through it too (on the writer, where nothing is kept:
see ``pk``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import TypeVar

from ltm_desktop.store.readers import Readers

T = TypeVar("T")


class ScopedReader:
    """Owns ``readers`` (closes them) and the project id -> key cache."""

    def __init__(self, readers: Readers) -> None:
        self._readers = readers
        self._project_pks: dict[str, int] = {}  # only committed rows (``pk``)

    def read(self, work: Callable[[sqlite3.Connection], T]) -> T:
        return self._readers.read(work)

    def read_scope(
        self, project_id: str, read: Callable[[sqlite3.Connection, int], T], empty: T
    ) -> T:
        """``read`` with the scope's key, on a reader; ``empty`` for a scope the database
        has no row for (nothing was ever written to it)."""

        def work(conn: sqlite3.Connection) -> T:
            pk = self.pk(conn, project_id)
            return empty if pk is None else read(conn, pk)

        return self.read(work)

    def pk(self, conn: sqlite3.Connection, project_id: str) -> int | None:
        """The project's key. Only committed rows are cached: readers share the cache, and
        must never be sent to a project (or its table) that a transaction may roll back."""
        pk = self._project_pks.get(project_id)
        if pk is None:
            row = conn.execute(
                "SELECT pk FROM projects WHERE project_id = ?", (project_id,)
            ).fetchone()
            if row is None:
                return None
            pk = int(row[0])
            if not conn.in_transaction:
                self._project_pks[project_id] = pk
        return pk

    def pks(self, conn: sqlite3.Connection, project_ids: Sequence[str]) -> list[int]:
        """The keys of those of the scopes that have a row."""
        pks = (self.pk(conn, project_id) for project_id in project_ids)
        return [pk for pk in pks if pk is not None]

    def close(self) -> None:
        self._readers.close()

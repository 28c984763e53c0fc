"""Per-project counts, for ``SqliteStore``: active memories, and for the app's projects
sidebar stale candidates and memories agents added since the person last looked."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from ltm_desktop.store import memory_reads as reads
from ltm_desktop.store.scoped_reader import ScopedReader

Counts = Callable[[sqlite3.Connection], dict[int, int]]


class CountReads:
    """Counts per project id (the queries count per project key)."""

    def __init__(self, reader: ScopedReader) -> None:
        self._reader = reader

    def _by_project_id(self, counts: Counts) -> dict[str, int]:
        def work(conn: sqlite3.Connection) -> dict[str, int]:
            names = dict(conn.execute("SELECT pk, project_id FROM projects").fetchall())
            return {names[pk]: n for pk, n in counts(conn).items()}

        return self._reader.read(work)

    def active_counts(self, now: float) -> dict[str, int]:
        return self._by_project_id(lambda conn: reads.active_counts(conn, now))

    def new_counts(self, since: float, now: float) -> dict[str, int]:
        return self._by_project_id(lambda conn: reads.new_counts(conn, since, now))

    def stale_counts(self, max_importance: int, cutoff: float, now: float) -> dict[str, int]:
        return self._by_project_id(
            lambda conn: reads.stale_counts(conn, max_importance, cutoff, now)
        )

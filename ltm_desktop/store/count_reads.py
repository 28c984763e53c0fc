"""Per-project counts for the app's projects sidebar (part of SqliteStore): stale
candidates, and memories agents added since the person last looked."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import TypeVar

from ltm_desktop.store import memory_reads as reads

T = TypeVar("T")
Counts = Callable[[sqlite3.Connection], dict[int, int]]


class CountReads:
    """Mixed into SqliteStore, which provides ``_read``."""

    def _read(self, work: Callable[[sqlite3.Connection], T]) -> T:
        raise NotImplementedError

    def _by_project_id(self, counts: Counts) -> dict[str, int]:
        def work(conn: sqlite3.Connection) -> dict[str, int]:
            names = dict(conn.execute("SELECT pk, project_id FROM projects").fetchall())
            return {names[pk]: n for pk, n in counts(conn).items()}

        return self._read(work)

    def new_counts(self, since: float, now: float) -> dict[str, int]:
        return self._by_project_id(lambda conn: reads.new_counts(conn, since, now))

    def stale_counts(self, max_importance: int, cutoff: float, now: float) -> dict[str, int]:
        return self._by_project_id(
            lambda conn: reads.stale_counts(conn, max_importance, cutoff, now)
        )

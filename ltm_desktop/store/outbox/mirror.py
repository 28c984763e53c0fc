"""The read cache: a local copy of the scopes this machine used, for answers while offline.

A separate SQLite file (``read_cache.db``): it can be rebuilt from the database at any
time, so it is written with ``synchronous = NORMAL`` and a lost file costs nothing but
offline answers. Each scope is replaced whole when it is refreshed (online, in the
background): what it answers is at most as old as the last refresh, and says so.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ltm_desktop.core.errors import LtmError, StorageError
from ltm_desktop.core.records import Memory, Project
from ltm_desktop.core.transfer.jsonl_format import memory_from_record, memory_record
from ltm_desktop.store.outbox.local_files import open_local_file

FILE_NAME = "read_cache.db"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS scopes (project_id TEXT PRIMARY KEY, refreshed_at REAL);
CREATE TABLE IF NOT EXISTS memories (
    id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL,
    record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS memories_scope ON memories (project_id);
CREATE TABLE IF NOT EXISTS scope_projects (
    project_id TEXT PRIMARY KEY,
    path TEXT,
    name TEXT NOT NULL,
    created_at REAL NOT NULL
);
"""


class Mirror:
    """The read cache of one data dir (thread-safe)."""

    def __init__(self, data_dir: Path) -> None:
        self.path = data_dir / FILE_NAME
        self._db = open_local_file(
            self.path, "the read cache", synchronous="NORMAL", schema=_SCHEMA
        )
        self._lock = threading.Lock()

    def _rows(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            try:
                return self._db.execute(sql, args).fetchall()
            except sqlite3.Error as exc:
                raise StorageError(f"the read cache {self.path}: {exc}") from exc

    def scopes(self) -> list[tuple[str, float | None]]:
        """Every mirrored scope and when it was last refreshed (None: not yet)."""
        return [(str(p), t) for p, t in self._rows("SELECT project_id, refreshed_at FROM scopes")]

    def add_scope(self, project_id: str) -> bool:
        """Mirror ``project_id`` from now on; True when it was not mirrored yet."""
        with self._lock:
            try:
                cursor = self._db.execute(
                    "INSERT OR IGNORE INTO scopes (project_id) VALUES (?)", (project_id,)
                )
            except sqlite3.Error as exc:
                raise StorageError(f"the read cache {self.path}: {exc}") from exc
            return cursor.rowcount > 0

    def replace(
        self,
        project_id: str,
        memories: Iterable[Memory],
        now: float,
        project: Project | None = None,
    ) -> None:
        """The scope's memories are these now, and its row ``project`` when given (one
        transaction)."""
        rows = [
            (m.id, project_id, json.dumps(memory_record(m), ensure_ascii=False)) for m in memories
        ]
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                self._db.execute("DELETE FROM memories WHERE project_id = ?", (project_id,))
                self._db.executemany("INSERT OR REPLACE INTO memories VALUES (?, ?, ?)", rows)
                self._db.execute(
                    "INSERT OR REPLACE INTO scopes (project_id, refreshed_at) VALUES (?, ?)",
                    (project_id, now),
                )
                if project is not None:
                    self._db.execute(
                        "INSERT OR REPLACE INTO scope_projects VALUES (?, ?, ?, ?)",
                        (project_id, project.path, project.name, project.created_at),
                    )
                self._db.execute("COMMIT")
            except sqlite3.Error as exc:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise StorageError(f"the read cache {self.path}: {exc}") from exc

    def memories(self, project_id: str) -> list[Memory]:
        rows = self._rows("SELECT record FROM memories WHERE project_id = ?", (project_id,))
        return [m for (record,) in rows if (m := _memory(record)) is not None]

    def projects(self) -> list[Project]:
        """The mirrored scopes' rows (a scope mirrored before its row was: its id)."""
        rows = self._rows(
            "SELECT s.project_id, p.path, p.name, p.created_at FROM scopes s "
            "LEFT JOIN scope_projects p ON p.project_id = s.project_id ORDER BY s.project_id"
        )
        return [
            Project(str(pid), path, str(name or pid), float(created or 0.0))
            for pid, path, name, created in rows
        ]

    def memory(self, memory_id: str) -> Memory | None:
        rows = self._rows("SELECT record FROM memories WHERE id = ?", (memory_id,))
        return _memory(rows[0][0]) if rows else None

    def close(self) -> None:
        with self._lock:
            self._db.close()


def _memory(record: str) -> Memory | None:
    """The cached memory, or None for a row this version cannot read (it is only a cache)."""
    try:
        return memory_from_record(json.loads(record))
    except (ValueError, LtmError):
        return None

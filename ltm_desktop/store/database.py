"""SqliteDatabase: one open SQLite database, the plumbing under ``SqliteStore``.

One writer connection, guarded by a lock (``write_gate``), runs every write as a
``BEGIN IMMEDIATE`` transaction; each reading thread gets its own connection
(``readers``, reached through ``scoped_reader``), so reads proceed concurrently under
WAL. The checkpointer and the audit anchor keep the files; the caches of what the rows
hold (search tables, vectors, token sets) live as long as the connections. sqlite3
errors leave this module as the core's typed ``StorageError``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import replace
from pathlib import Path
from typing import TypeVar

from ltm_desktop.core.backend import SearchRepair, StoreHealth, Verification
from ltm_desktop.store import erasing
from ltm_desktop.store.audit import verify
from ltm_desktop.store.checkpointer import Checkpointer
from ltm_desktop.store.connection import describe_error
from ltm_desktop.store.fts.damage import SearchDamage
from ltm_desktop.store.fts.tables import MemoryTables
from ltm_desktop.store.migrations import Migration
from ltm_desktop.store.opening import open_database
from ltm_desktop.store.readers import Readers
from ltm_desktop.store.scoped_reader import ScopedReader
from ltm_desktop.store.vectors.scope_index import ScopeTokenSets
from ltm_desktop.store.vectors.storage import VectorIndex
from ltm_desktop.store.write_gate import WriteGate

T = TypeVar("T")


class SqliteDatabase:
    """Its connections (``reader`` for reads, ``transaction`` for writes), its caches
    (``tables``, ``vectors``, ``token_sets``, ``search_damage``), their health and closing."""

    def __init__(
        self,
        path: Path,
        backup_dir: Path,
        migrations: Sequence[Migration],
        *,
        synchronous: str,
        busy_timeout_ms: int,
        create: bool,
    ) -> None:
        """Refuses what ``opening.open_database`` refuses, before serving anything."""
        self.path = path
        self._synchronous = synchronous.lower()
        opened = open_database(
            path, backup_dir, migrations, synchronous, busy_timeout_ms, create=create
        )
        self._writer = opened.writer
        self.migration_backup = opened.migration_backup
        self.schema_version = opened.schema_version
        self._guard = opened.guard
        self.token_sets = ScopeTokenSets()
        self.vectors = VectorIndex()
        self.tables = MemoryTables()
        self._anchor = opened.anchor
        self._checkpointer = Checkpointer(
            path,
            synchronous=synchronous,
            still_ours=lambda: self._guard.look().lost is None,
            durable=self._anchor.before_checkpoint,
        )
        self._checkpointer.note_write()  # a first checkpoint anchors a data dir without one
        self._gate = WriteGate(self._writer, path, self._guard, self._anchor, self.token_sets.reset)
        self._gate.checkpointer = self._checkpointer
        self.reader = ScopedReader(Readers(path, self._guard))
        self.search_damage = SearchDamage(self._on_writer, self.transaction, backup_dir)

    def health(self) -> StoreHealth:
        lost = self._guard.look().lost
        problems = (
            str(self._guard.error()) if lost is not None else None,
            self._anchor.problem,
            self._checkpointer.problem(),
            self._gate.failure,
            *self.search_damage.problems(),
        )
        return StoreHealth(tuple(p for p in problems if p), self._synchronous)

    def close(self) -> None:
        with self._gate.lock:
            if self._gate.closed:
                return
            self._gate.closed = True
            self._checkpointer.stop()
            self.reader.close()
            try:
                self._writer.execute("PRAGMA optimize")
            except sqlite3.Error:
                pass
            ours, noted = self._guard.look().lost is None, self._anchor.noted()
            self._writer.close()
            self._anchor.closed(ours, self.path, noted)

    def data_version(self) -> int:
        with self._gate.lock:
            try:
                return int(self._writer.execute("PRAGMA data_version").fetchone()[0])
            except sqlite3.Error as exc:
                raise describe_error(exc, self.path) from exc

    def transaction(self) -> AbstractContextManager[sqlite3.Connection]:
        """One write transaction (``write_gate``)."""
        return self._gate.transaction()

    def _on_writer(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """``work`` on the writer between writes, each statement its own (FTS5's checks)."""
        with self._gate.lock:
            self._gate.check_open()
            try:
                return work(self._writer)
            except sqlite3.Error as exc:
                raise describe_error(exc, self.path) from exc

    def writable_pk(self, conn: sqlite3.Connection, project_id: str, now: float) -> int:
        """In a write transaction: the scope's key, its row and table made on its first write."""
        pk = self.reader.pk(conn, project_id)
        if pk is None:
            conn.execute(
                "INSERT INTO projects (project_id, path, name, created_at) VALUES (?, NULL, ?, ?)",
                (project_id, project_id, now),
            )
            pk = self.reader.pk(conn, project_id)
        assert pk is not None
        self.tables.ensure(conn, pk)
        return pk

    # -- keeping the files (``MemoryStore.verify``, ``repair_search``, ``scrub``) ------

    def verify(self, quick: bool) -> Verification:
        found = self.reader.read(lambda conn: verify.verify(conn, quick, self._anchor.path))
        searches = () if quick else tuple(self.search_damage.verify())
        return replace(found, problems=found.problems + searches)

    def repair_search(self) -> SearchRepair:
        with self._gate.lock:
            return self.search_damage.repair()

    def scrub(self) -> str | None:
        with self._gate.lock:
            try:
                return erasing.scrub(self._writer)
            except sqlite3.Error as exc:
                return str(describe_error(exc, self.path))

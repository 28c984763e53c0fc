"""The writer connection's one way in: every write transaction of ``SqliteStore``.

A write is refused when the files at the database's path are no longer the ones open
(``file_guard``: SQLite would write on, to files nobody finds again), and the files are
looked at again once it has committed: a WAL deleted or replaced while the write was in
flight (after the first look) would otherwise have the write acknowledged on a file no
other process will read, so it fails instead (DatabaseReplaced, as every write after it
does). Then the head it left is noted for the audit anchor (``chain_anchor``) and the
checkpointer is told; a failure is kept for ``health`` until a write succeeds.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from ltm_desktop.core.errors import StorageError
from ltm_desktop.store.audit.anchor import ChainAnchor, current_head
from ltm_desktop.store.checkpointer import Checkpointer
from ltm_desktop.store.connection import transaction
from ltm_desktop.store.file_guard import FileGuard


class WriteGate:
    """Holds the writer's lock; ``closed`` once the store closes."""

    def __init__(
        self,
        writer: sqlite3.Connection,
        path: Path,
        guard: FileGuard,
        anchor: ChainAnchor,
        rolled_back: Callable[[], None],
    ) -> None:
        """``rolled_back``: drop what caches may hold of a transaction that failed."""
        self._writer = writer
        self._path = path
        self._guard = guard
        self._anchor = anchor
        self._rolled_back = rolled_back
        self.checkpointer: Checkpointer | None = None  # told of each commit once set
        self.lock = threading.RLock()
        self.closed = False
        self.failure: str | None = None  # the last write's failure, until one succeeds

    def check_open(self) -> None:
        if self.closed:
            raise StorageError("the store is closed")

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` transaction on files still ours (a few ``stat`` calls)."""
        with self.lock:
            self.check_open()
            wal_bytes = self._guard.check()
            try:
                with transaction(self._writer, self._path) as conn:
                    yield conn
                    newest = current_head(conn)  # in the transaction, so it is this commit's
                self._guard.check()  # acknowledged only if it is on the files at the path
                self._anchor.note(newest)
                if self.checkpointer is not None:
                    self.checkpointer.note_write(wal_bytes)
                self.failure = None
            except BaseException as exc:
                self._rolled_back()
                if isinstance(exc, StorageError):
                    at = time.strftime("%H:%M:%S")
                    self.failure = f"the last write failed (at {at}): {exc}"
                raise

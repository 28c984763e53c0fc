"""The outbox file: writes waiting for the database, in order, durable before acknowledged.

One SQLite file in the data dir (``outbox.db``), WAL with ``synchronous = FULL``: a write
is acknowledged as queued only once its row is committed and fsynced, so a crash or a
power cut after the answer loses nothing. Several processes of one data dir (the server,
an agent's MCP server opened without it) may append at once; SQLite serializes them.

Beside the queue, ``kept`` holds writes a replay could not apply as they were and could
not hand to the Inbox either (an offline removal of a memory edited meanwhile): they stay
here, counted in ``status``, for a person to look at (``ltm-desktop outbox``), who may
queue one again (``retry``) or set it aside for good (``dismiss``: moved to
``dismissed``, still listed with ``--all``); nothing is dropped.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ltm_desktop.core.errors import NotFound, StorageError
from ltm_desktop.core.offline import QueuedKind, QueuedWrite
from ltm_desktop.store.outbox.local_files import open_local_file

FILE_NAME = "outbox.db"
_COLUMNS = "seq, kind, memory_id, project_id, actor, queued_at, fields, cwd, base_version, follows"
_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS outbox (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,
    memory_id TEXT NOT NULL,
    project_id TEXT NOT NULL,
    actor TEXT NOT NULL,
    queued_at REAL NOT NULL,
    fields TEXT NOT NULL,
    cwd TEXT,
    base_version REAL,
    follows INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS outbox_memory ON outbox (memory_id, seq);
CREATE TABLE IF NOT EXISTS kept (
    {_COLUMNS.replace("seq,", "seq INTEGER PRIMARY KEY,")},
    reason TEXT NOT NULL,
    kept_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS dismissed (
    {_COLUMNS.replace("seq,", "seq INTEGER PRIMARY KEY,")},
    reason TEXT NOT NULL,
    kept_at REAL NOT NULL,
    dismissed_at REAL NOT NULL
);
"""


@dataclass(frozen=True, slots=True)
class KeptWrite:
    """A write the replay kept aside, with why and when (and when a person dismissed it)."""

    write: QueuedWrite
    reason: str
    kept_at: float
    dismissed_at: float | None = None


class Journal:
    """The queue of one data dir's outbox (thread-safe; one connection, one lock)."""

    def __init__(self, data_dir: Path) -> None:
        self.path = data_dir / FILE_NAME
        self._db = open_local_file(self.path, "the outbox", synchronous="FULL", schema=_SCHEMA)
        self._lock = threading.Lock()

    @contextmanager
    def _txn(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    yield self._db
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise
                self._db.execute("COMMIT")
            except sqlite3.Error as exc:
                raise StorageError(f"the outbox {self.path}: {exc}") from exc

    def _read(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            try:
                return self._db.execute(sql, args).fetchall()
            except sqlite3.Error as exc:
                raise StorageError(f"the outbox {self.path}: {exc}") from exc

    def append(self, write: QueuedWrite) -> QueuedWrite:
        """Append ``write`` after every other; returns it with its ``seq``, once durable.

        A write on a memory an earlier queued write touches ``follows`` it: its base
        version is the one that earlier write leaves, filled in when it is replayed."""
        with self._txn() as db:
            earlier = db.execute(
                "SELECT 1 FROM outbox WHERE memory_id = ? LIMIT 1", (write.memory_id,)
            ).fetchone()
            follows = earlier is not None and write.kind is not QueuedKind.ADD
            base = None if follows else write.base_version
            seq = _insert(db, write, base, follows)
        return replace(write, seq=seq, base_version=base, follows=follows)

    def pending(self, project_id: str | None = None, limit: int = 1_000_000) -> list[QueuedWrite]:
        """The waiting writes, oldest first (of one scope, or all)."""
        where, args = ("WHERE project_id = ?", (project_id,)) if project_id else ("", ())
        rows = self._read(
            f"SELECT {_COLUMNS} FROM outbox {where} ORDER BY seq LIMIT ?", (*args, limit)
        )
        return [_write(row) for row in rows]

    def first(self) -> QueuedWrite | None:
        found = self.pending(limit=1)
        return found[0] if found else None

    def count(self) -> tuple[int, float | None]:
        """How many wait, and when the oldest was queued."""
        rows = self._read("SELECT count(*), min(queued_at) FROM outbox")
        return int(rows[0][0]), rows[0][1]

    def has_waiting(self) -> bool:
        return bool(self._read("SELECT EXISTS (SELECT 1 FROM outbox)")[0][0])

    def kept_count(self) -> int:
        return int(self._read("SELECT count(*) FROM kept")[0][0])

    def kept(self) -> list[KeptWrite]:
        """The writes kept aside, oldest first."""
        rows = self._read(f"SELECT {_COLUMNS}, reason, kept_at FROM kept ORDER BY seq")
        return [KeptWrite(_write(row[:-2]), str(row[-2]), float(row[-1])) for row in rows]

    def dismissed(self) -> list[KeptWrite]:
        """The writes a person set aside for good, oldest first."""
        rows = self._read(
            f"SELECT {_COLUMNS}, reason, kept_at, dismissed_at FROM dismissed ORDER BY seq"
        )
        return [
            KeptWrite(_write(row[:-3]), str(row[-3]), float(row[-2]), float(row[-1]))
            for row in rows
        ]

    def retry(self, seq: int, *, over_changes: bool) -> QueuedWrite:
        """Queue kept write ``seq`` again, after every waiting one (a new ``seq``).
        ``over_changes``: replay it without its compare-and-swap, over what was changed
        elsewhere (a person's decision); else against the version its writer saw.

        Raises:
            NotFound: no write ``seq`` is kept aside.
        """
        with self._txn() as db:
            row = db.execute(f"SELECT {_COLUMNS} FROM kept WHERE seq = ?", (seq,)).fetchone()
            if row is None:
                raise NotFound(f"no write #{seq} is kept aside in {self.path}")
            kept = _write(row)
            base = None if over_changes else kept.base_version
            new_seq = _insert(db, kept, base, follows=False)
            db.execute("DELETE FROM kept WHERE seq = ?", (seq,))
        return replace(kept, seq=new_seq, base_version=base, follows=False)

    def dismiss(self, seq: int, now: float) -> KeptWrite:
        """Set kept write ``seq`` aside for good (moved to ``dismissed``, not deleted).

        Raises:
            NotFound: no write ``seq`` is kept aside.
        """
        with self._txn() as db:
            row = db.execute(
                f"SELECT {_COLUMNS}, reason, kept_at FROM kept WHERE seq = ?", (seq,)
            ).fetchone()
            if row is None:
                raise NotFound(f"no write #{seq} is kept aside in {self.path}")
            db.execute(
                f"INSERT OR REPLACE INTO dismissed ({_COLUMNS}, reason, kept_at, dismissed_at) "
                f"SELECT {_COLUMNS}, reason, kept_at, ? FROM kept WHERE seq = ?",
                (now, seq),
            )
            db.execute("DELETE FROM kept WHERE seq = ?", (seq,))
        return KeptWrite(_write(row[:-2]), str(row[-2]), float(row[-1]), now)

    def done(self, write: QueuedWrite, version: float | None) -> None:
        """``write`` is committed in the database: remove it, and give the writes that
        follow it on the same memory the version it left (their compare-and-swap)."""
        with self._txn() as db:
            db.execute("DELETE FROM outbox WHERE seq = ?", (write.seq,))
            if version is not None:
                db.execute(
                    "UPDATE outbox SET base_version = ? WHERE memory_id = ? AND follows = 1 "
                    "AND base_version IS NULL AND seq = (SELECT min(seq) FROM outbox "
                    "WHERE memory_id = ?)",
                    (version, write.memory_id, write.memory_id),
                )

    def keep(self, write: QueuedWrite, reason: str, now: float) -> None:
        """Move ``write`` aside (``kept``) with why; it is not replayed again."""
        with self._txn() as db:
            db.execute(
                f"INSERT OR REPLACE INTO kept ({_COLUMNS}, reason, kept_at) "
                f"SELECT {_COLUMNS}, ?, ? FROM outbox WHERE seq = ?",
                (reason, now, write.seq),
            )
            db.execute("DELETE FROM outbox WHERE seq = ?", (write.seq,))

    def close(self) -> None:
        with self._lock:
            self._db.close()


def peek(data_dir: Path) -> tuple[int, float | None, int] | None:
    """(waiting, oldest queued_at, kept) of the data dir's outbox, read only; None when
    there is no outbox (nothing was ever queued there)."""
    path = data_dir / FILE_NAME
    if not path.exists():
        return None
    try:
        db = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=5.0)
        try:
            waiting, oldest = db.execute("SELECT count(*), min(queued_at) FROM outbox").fetchone()
            (kept,) = db.execute("SELECT count(*) FROM kept").fetchone()
        finally:
            db.close()
    except sqlite3.Error as exc:
        raise StorageError(f"cannot read the outbox {path}: {exc}") from exc
    return int(waiting), oldest, int(kept)


def _insert(db: sqlite3.Connection, write: QueuedWrite, base: float | None, follows: bool) -> int:
    """Append ``write`` to the queue with this base version; its new ``seq``."""
    cursor = db.execute(
        "INSERT INTO outbox (kind, memory_id, project_id, actor, queued_at, fields, "
        "cwd, base_version, follows) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            write.kind.value,
            write.memory_id,
            write.project_id,
            write.actor,
            write.queued_at,
            json.dumps(write.fields, ensure_ascii=False),
            write.cwd,
            base,
            int(follows),
        ),
    )
    return int(cursor.lastrowid or 0)


def _write(row: tuple[Any, ...]) -> QueuedWrite:
    seq, kind, memory_id, project_id, actor, queued_at, fields, cwd, base, follows = row
    return QueuedWrite(
        int(seq),
        QueuedKind(kind),
        str(memory_id),
        str(project_id),
        str(actor),
        float(queued_at),
        json.loads(fields),
        cwd,
        None if base is None else float(base),
        bool(follows),
    )

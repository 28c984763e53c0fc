"""The audit chain's head, anchored in a file beside the database.

The chain (``audit_chain``) shows an event changed in place, but not events deleted from
its end: the shorter chain still links, and the append-only triggers can be dropped and
put back. So the newest (sequence, hash) is also written to ``<db>.audit-head.json``, and
``verify`` and every start compare it with the database: a history that ends before the
anchored event (its tail deleted, or an older copy of the database put in place by hand)
or whose hash at that event differs (the history rewritten) is reported.

Only a head that is durable is anchored, or a power cut could leave the anchor ahead of
the database (``synchronous=NORMAL`` syncs the WAL at checkpoints, not at commits): the
head is read from the database just before a checkpoint and anchored once that
checkpoint has copied the whole WAL back and synced the database. It is read from the
database, not remembered from this process's commits, because other processes write too
(agent hooks, ``ltm-desktop mcp``, commands): their events are anchored by whichever
process checkpoints next, and each closing store checkpoints once more itself. So the
anchor costs one small durable file write per checkpoint (at most one a second), none
per write, and lags the database by about a second, which is harmless: it only says how
far the history reached *at least*.

The anchor never moves back: it is replaced under the database's write lock, and only
when the one on disk is an event of this history at or below the new head (another
process may have anchored a later head meanwhile; one not in the history is evidence,
kept and reported). A damaged file is reported the same way and left as it is.

While a mismatch stands the anchor is not moved (writes would erase the evidence): a
restore of a verified backup re-anchors, and removing the file accepts the database as it
is (a missing anchor is written afresh, as for data dirs from before it).
"""

from __future__ import annotations

import json
import logging
import re
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ltm_desktop.core.errors import StorageError
from ltm_desktop.core.files.atomic_files import replace_text
from ltm_desktop.store.audit.chain import GENESIS, head
from ltm_desktop.store.checkpointer import passive_checkpoint
from ltm_desktop.store.connection import connect

log = logging.getLogger(__name__)
SUFFIX = ".audit-head.json"
CLOSING_BUSY_MS = 200  # how long a closing process waits for another's lock to anchor


@dataclass(frozen=True, slots=True)
class Head:
    """An event of the chain: its sequence number and hash ((0, GENESIS): none yet)."""

    seq: int
    hash: str


def anchor_path(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + SUFFIX)


def current_head(conn: sqlite3.Connection) -> Head | None:
    """The newest event; None for a history that is not chained (schemas before 5, which
    only tests keep open: the migration to 5 chains it)."""
    try:
        return Head(*head(conn))
    except sqlite3.OperationalError as exc:
        if "no such column" not in str(exc):
            raise
        return None


MAX_SEQ = 2**63 - 1  # SQLite's largest INTEGER: a bigger one cannot even be looked up
_HASH = re.compile(r"[0-9a-f]{64}")


def read_anchor(path: Path) -> Head | None:
    """The anchored head; None when there is no file. ValueError, naming the file, when
    it is not an anchor this code writes (not JSON, not UTF-8, a seq that is not a plain
    int SQLite can hold, a hash that is not 64 lowercase hex digits, a directory): a
    damaged anchor is a problem to report, never a reason not to open."""
    damaged = (
        f"{path} is not an audit anchor (damaged?); remove it to accept the database as it "
        "is and anchor it afresh"
    )
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError:
        raise ValueError(damaged) from None
    except OSError as exc:
        raise ValueError(f"{path} cannot be read ({exc.strerror})") from None
    try:
        values = json.loads(text)
        seq, digest = values["seq"], values["hash"]
    except (ValueError, TypeError, KeyError):
        raise ValueError(damaged) from None
    if type(seq) is not int or not 0 <= seq <= MAX_SEQ:  # bool is an int: not a seq
        raise ValueError(damaged)
    if not isinstance(digest, str) or _HASH.fullmatch(digest) is None:
        raise ValueError(damaged)
    return Head(seq, digest)


def write_anchor(path: Path, anchored: Head) -> None:
    """Replace the anchor atomically and durably (temp file, fsync, rename, fsync dir)."""
    text = json.dumps({"seq": anchored.seq, "hash": anchored.hash}) + "\n"
    replace_text(path, text, prefix=f".{path.name}.", mode=0o600)


def compare(conn: sqlite3.Connection, anchored: Head, path: Path) -> str | None:
    """Why the database behind ``conn`` does not reach the anchored head, or None."""
    if anchored.seq == 0:
        return None
    row = conn.execute("SELECT hash FROM audit WHERE seq = ?", (anchored.seq,)).fetchone()
    if row is None:
        found = current_head(conn)
        last = 0 if found is None else found.seq
        if last < anchored.seq:
            return (
                f"the audit history ends at event #{last}, but {path} records that it reached "
                f"#{anchored.seq}: its newest {anchored.seq - last} event(s) were deleted, or an "
                "older copy of the database was put in place (restore a backup with `ltm-desktop "
                "restore`, or remove that file to accept the database as it is)"
            )
        return f"audit event #{anchored.seq}, recorded in {path}, is missing from the history"
    if str(row[0] or GENESIS) != anchored.hash:
        return (
            f"audit event #{anchored.seq} has another hash than the one recorded in {path}: "
            "the history was rewritten up to there"
        )
    return None


def check(conn: sqlite3.Connection, path: Path) -> str | None:
    """``compare`` with the anchor as it is on disk now (None: no anchor, nothing to say)."""
    try:
        anchored = read_anchor(path)
    except ValueError as exc:
        return str(exc)
    if anchored is None or current_head(conn) is None:
        return None
    return compare(conn, anchored, path)


class ChainAnchor:
    """Keeps the anchor of one open database: checked at open, moved at checkpoints."""

    def __init__(
        self,
        db_path: Path,
        still_ours: Callable[[], bool],
        database_is_ours: Callable[[], bool] | None = None,
    ) -> None:
        """``still_ours``: whether the database, its WAL and -shm are still the files open;
        ``database_is_ours``: whether the database file is (all that is left to compare
        once the last connection closed: SQLite then removed the WAL, and the closing
        checkpoint's connection made a new one). Default: ``still_ours``."""
        self._path = anchor_path(db_path)
        self._still_ours = still_ours
        self._database_is_ours = database_is_ours or still_ours
        self._lock = threading.Lock()
        self._noted: Head | None = None  # the head after this process's newest commit
        self._written: Head | None = None  # what this process last found or put on disk
        self.problem: str | None = None  # a mismatch found: the anchor stays put

    @property
    def path(self) -> Path:
        return self._path

    def open(self, conn: sqlite3.Connection) -> None:
        """At start: compare the anchor with the database; note the head either way (a
        missing anchor is written at the next checkpoint, without alarm)."""
        self.problem = check(conn, self._path)
        if self.problem is not None:
            log.error("%s", self.problem)
        self.note(current_head(conn))

    def note(self, newest: Head | None) -> None:
        """A commit was made; ``newest`` is the head it left (any thread). Only a hint for
        callers: what is anchored is read from the database at a checkpoint, because
        other processes write to it too."""
        with self._lock:
            self._noted = newest

    def noted(self) -> Head | None:
        with self._lock:
            return self._noted

    def closed(self, ours: bool, db_path: Path, noted: Head | None = None) -> None:
        """After the store's last connection closed: one more checkpoint, on a connection
        of its own, and the head it made durable anchored. A short-lived process (an agent
        hook, ``ltm-desktop mcp``, a command) may close before its checkpointer ever ran,
        and while another process holds the database closing leaves the WAL in place, so
        nothing else would anchor what it wrote. Waits for no lock for long (a hook must
        not): if another process is writing, that process checkpoints next and anchors.
        ``ours``: the files were still the ones open just before closing."""
        if not ours or self.problem is not None:
            return
        try:
            conn = connect(db_path, busy_timeout_ms=CLOSING_BUSY_MS)
        except (StorageError, sqlite3.Error, OSError) as exc:
            log.info("no last checkpoint of %s to anchor its audit head: %s", db_path, exc)
            return
        try:
            newest = current_head(conn)
            if passive_checkpoint(conn) and self._database_is_ours():
                self.advance(conn, newest)
        except sqlite3.Error as exc:
            log.info("no last checkpoint of %s to anchor its audit head: %s", db_path, exc)
        finally:
            conn.close()

    def before_checkpoint(self, conn: sqlite3.Connection) -> Callable[[], None]:
        """Called on ``conn`` before a checkpoint on it starts: reads the head from the
        database (every process's commits so far, not only this one's) and returns what
        to call once that checkpoint has copied the whole WAL back, the head durable by
        then: anchor it (``advance``), unless the files at the path are no longer the ones
        open (that head is not theirs)."""
        newest = current_head(conn)

        def then() -> None:
            if self._still_ours():
                self.advance(conn, newest)

        return then

    def advance(self, conn: sqlite3.Connection, newest: Head | None) -> bool:
        """Anchor ``newest``, a durable head of the database behind ``conn``, unless the
        anchor on disk is ahead of it (another process anchored a later head: it never
        moves back) or is not in this history (kept as evidence, and reported). The read,
        comparison and replace happen under the database's write lock, so two processes
        anchoring at once cannot interleave (each replace is atomic besides). Whether the
        anchor was written."""
        if newest is None or self.problem is not None:
            return False
        with self._lock:
            if newest == self._written:
                return False
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    return self._replace(conn, newest)
                finally:
                    conn.execute("COMMIT")  # nothing was written in it: releases the lock
            except sqlite3.Error as exc:  # busy: the next checkpoint, or the close, retries
                log.info("the audit anchor %s waits for the next checkpoint: %s", self._path, exc)
                return False

    def _replace(self, conn: sqlite3.Connection, newest: Head) -> bool:
        try:
            on_disk = read_anchor(self._path)
        except ValueError as exc:
            return self._keep(str(exc))
        if on_disk is not None and on_disk.seq > newest.seq:
            return False  # another process anchored a later head
        if on_disk == newest:
            self._written = newest
            return False
        if on_disk is not None and (mismatch := compare(conn, on_disk, self._path)):
            return self._keep(mismatch)
        try:
            write_anchor(self._path, newest)
        except OSError as exc:  # the database is fine; the anchor is retried next time
            log.warning("cannot write the audit anchor %s: %s", self._path, exc)
            return False
        self._written = newest
        return True

    def _keep(self, problem: str) -> bool:
        """The anchor on disk is not one this history passed through: leave it, and say."""
        self.problem = problem
        log.error("%s", problem)
        return False

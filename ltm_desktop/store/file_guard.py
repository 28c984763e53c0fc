"""Noticing that the database files were removed or replaced while they are open.

SQLite keeps writing to the files it opened, even after they were unlinked or a
different file was moved to their path: every write is then acknowledged and lost
when the process stops. The guard remembers the device and inode of the database,
its WAL and its shared-memory file as opened, and compares them with what the paths
hold now. It only calls ``os.stat`` (a few microseconds, and it never opens the
file, which would drop this process's SQLite locks when closed). Once a difference
is seen it is remembered: the open connections can never reach the new files.
"""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass
from pathlib import Path

from ltm_desktop.core.errors import DatabaseReplaced

log = logging.getLogger(__name__)
SUFFIXES = ("", "-wal", "-shm")


FileId = tuple[int, int]  # (device, inode): a plain tuple, compared on every write


@dataclass(frozen=True, slots=True)
class Look:
    """What a check saw: the loss (if any) and the WAL's size, which comes for free."""

    lost: str | None
    wal_bytes: int


def file_id(path: str) -> FileId | None:
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    return (info.st_dev, info.st_ino)


class FileGuard:
    """Compares the files an SQLite database was opened on with what their paths hold."""

    def __init__(self, db_path: Path) -> None:
        """Call once the connections are open (SQLite has created the WAL and -shm)."""
        self._paths = [f"{db_path}{suffix}" for suffix in SUFFIXES]
        self._db_path = db_path
        self._expected = [file_id(path) for path in self._paths]
        self._lock = threading.Lock()
        self._lost: str | None = None

    @property
    def lost(self) -> str | None:
        """Why the files are no longer ours, if a check found out (no system call)."""
        return self._lost

    def look(self) -> Look:
        """Check the paths now; latches the first difference found."""
        wal_bytes = 0
        if self._lost is None:
            for index, (path, expected) in enumerate(zip(self._paths, self._expected, strict=True)):
                if expected is None:  # absent when opened: nothing to compare
                    continue
                try:
                    info = os.stat(path)
                except FileNotFoundError:
                    self._latch(f"{path} was removed")
                    break
                except OSError as exc:
                    self._latch(f"{path} cannot be checked ({exc.strerror})")
                    break
                if (info.st_dev, info.st_ino) != expected:
                    self._latch(f"{path} was replaced by another file")
                    break
                if index == 1:
                    wal_bytes = info.st_size
        return Look(self._lost, wal_bytes)

    def database_is_ours(self) -> bool:
        """Whether the database file at the path is still the one opened (its WAL and -shm
        are not compared: once every connection closed, SQLite removed them, and a new
        connection makes new ones). Latches nothing."""
        return self._lost is None and file_id(self._paths[0]) == self._expected[0]

    def check(self) -> int:
        """Raise DatabaseReplaced if the files are no longer ours; else the WAL's size."""
        seen = self.look()
        if seen.lost is not None:
            raise self.error()
        return seen.wal_bytes

    def error(self) -> DatabaseReplaced:
        return DatabaseReplaced(
            f"the database {self._db_path} was removed or replaced while ltm-desktop had it "
            f"open ({self._lost}); nothing more is written to it, so that no change is "
            "acknowledged and then lost. Restart ltm-desktop to use what is there now."
        )

    def _latch(self, why: str) -> None:
        with self._lock:
            if self._lost is None:
                self._lost = why
                log.error("%s", self.error())

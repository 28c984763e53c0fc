"""Advisory file locks that work across processes (and die with their holder)."""

from __future__ import annotations

import errno
import os
import stat
import sys
from pathlib import Path
from types import TracebackType

from ltm_desktop.core.errors import UnsafePath
from ltm_desktop.core.files.private_dirs import make_missing_dirs, make_private_dirs

__all__ = ["FileLock", "make_private_dirs", "open_lock_file"]

# Never through a symlink (someone else's file would be locked, or created); never
# blocking on a FIFO put in its place; never inherited by the processes we start.
_OPEN_FLAGS = (
    os.O_RDWR
    | os.O_CREAT
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
)

if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _lock(fd: int, blocking: bool) -> bool:
        mode = msvcrt.LK_LOCK if blocking else msvcrt.LK_NBLCK
        try:
            msvcrt.locking(fd, mode, 1)
        except OSError:
            return False
        return True

    def _unlock(fd: int) -> None:
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _lock(fd: int, blocking: bool) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
        except BlockingIOError:
            return False
        return True

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


def open_lock_file(path: Path) -> int:
    """Open (creating if need be) our own lock file; refuse a symlink or a stranger's file.

    Raises UnsafePath with a message naming the file and the fix.
    """
    try:
        fd = os.open(path, _OPEN_FLAGS, 0o600)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK):  # EMLINK: FreeBSD's answer
            raise UnsafePath(
                f"the lock file {path} is a symbolic link; ltm-desktop never follows one. Remove it"
            ) from None
        if isinstance(exc, PermissionError):
            raise UnsafePath(
                f"cannot open the lock file {path}: permission denied (it belongs to "
                "someone else?). Remove it, or choose another directory"
            ) from None
        raise
    info = os.fstat(fd)
    problem = None
    if not stat.S_ISREG(info.st_mode):
        problem = "is not a regular file"
    elif sys.platform != "win32" and info.st_uid != os.getuid():
        problem = f"belongs to another user (uid {info.st_uid})"
    if problem is not None:
        os.close(fd)
        raise UnsafePath(
            f"the lock file {path} {problem}; remove it if no ltm-desktop of yours is running"
        )
    return fd


class FileLock:
    """An exclusive lock on ``path``; the OS releases it if the process dies.

    Missing directories on the way are created 0700. With ``within``, every directory
    between it and the lock must also be a real one of ours (see make_private_dirs).
    """

    def __init__(self, path: Path, *, within: Path | None = None) -> None:
        self.path = path
        self.within = within
        self._fd: int | None = None

    def acquire(self, blocking: bool = True) -> bool:
        """Take the lock; with ``blocking=False`` return False at once if it is held."""
        if self._fd is not None:
            raise RuntimeError(f"{self.path} is already locked by this object")
        if self.within is not None:
            make_private_dirs(self.path.parent, within=self.within)
        else:
            make_missing_dirs(self.path.parent)
        fd = open_lock_file(self.path)
        if not _lock(fd, blocking):
            os.close(fd)
            return False
        self._fd = fd
        return True

    def release(self) -> None:
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            _unlock(fd)
        finally:
            os.close(fd)

    @property
    def held(self) -> bool:
        return self._fd is not None

    def __enter__(self) -> FileLock:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()

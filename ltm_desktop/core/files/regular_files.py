"""Opening a file someone else named (a transcript, the hooks' log, the config file) only
if it is a regular file, and never waiting to open it.

A FIFO in its place would make ``open()`` wait for the other end (forever, in a hook),
``/dev/zero`` never ends and ``/dev/full`` fails every write; so the file is opened
non-blocking and checked on the descriptor itself (no window between a check and the
open), and anything but a regular file is refused with an ``OSError`` naming its kind.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from ltm_desktop.core.files.atomic_files import file_kind

NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # POSIX; Windows has no FIFOs to wait on
ALWAYS = (
    NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
)


class NotRegularFile(OSError):
    """The path names a FIFO, a device, a socket... not a file to read or append to."""

    kind = "a file of another kind"  # for messages: "a FIFO", "a character device"...


def open_regular(path: Path, flags: int = os.O_RDONLY, mode: int = 0o600) -> int:
    """A blocking descriptor on ``path`` opened with ``flags`` (``mode`` if created).

    Raises:
        IsADirectoryError: ``path`` is a directory.
        NotRegularFile: it is anything else but a regular file.
        OSError: it cannot be opened (a FIFO opened for writing without a reader: ENXIO).
    """
    fd = os.open(path, flags | ALWAYS, mode)
    try:
        kind = os.fstat(fd).st_mode
        if stat.S_ISDIR(kind):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        if not stat.S_ISREG(kind):
            refused = NotRegularFile(errno.EINVAL, f"not a regular file but {file_kind(kind)}")
            refused.filename, refused.kind = str(path), file_kind(kind)
            raise refused
        if NONBLOCK:
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd

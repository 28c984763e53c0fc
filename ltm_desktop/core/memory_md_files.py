"""Writing MEMORY.md files so that a reader, a crash or a power cut never sees half a file."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from pathlib import Path

from ltm_desktop.core.filelock import make_private_dirs

TEMP_PREFIX = ".MEMORY."
TEMP_SUFFIX = ".tmp"


def _fsync_dir(directory: Path) -> None:
    """Make a rename in ``directory`` durable (POSIX: the directory entry is data too)."""
    if sys.platform == "win32":  # pragma: no cover - directories cannot be opened there
        return
    fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomically(path: Path, text: str) -> None:
    """Replace ``path`` with ``text``: readers see the old file or the new one, whole.

    The temp file is synced before the rename and the directory after it, so after a
    power cut the file holds either version, never an empty or partial one.
    """
    make_private_dirs(path.parent, within=path.parents[2])  # the data dir: precis/<scope>/
    fd, temp_name = tempfile.mkstemp(dir=path.parent, prefix=TEMP_PREFIX, suffix=TEMP_SUFFIX)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp_name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            Path(temp_name).unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def read_text(path: Path) -> str:
    """The file as an outside reader sees it ("" when missing)."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""

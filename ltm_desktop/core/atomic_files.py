"""Replacing a text file so that a reader, a crash or a power cut never sees half of it.

A file is replaced by writing a temporary file beside it and renaming it over the old one.
That is only right for a regular file: renamed over a FIFO or a device (``-o /dev/stdout``,
``-o /dev/full``) it would put a regular file in its place, and over a symlink it would
replace the link instead of writing where it points. ``check_replaceable`` refuses them.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import tempfile
from pathlib import Path

from ltm_desktop.core.errors import InvalidInput


def replace_text(
    path: Path, text: str, *, prefix: str, suffix: str = ".tmp", mode: int | None = None
) -> None:
    """Replace ``path`` with ``text``: readers see the old file or the new one, whole.

    The temp file (``prefix``…``suffix`` beside it, given ``mode`` if set) is synced
    before the rename and the directory after it, so after a power cut the file holds
    either version, never an empty or partial one.
    """
    fd, temp_name = tempfile.mkstemp(dir=path.parent, prefix=prefix, suffix=suffix)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temp_name, mode)
        os.replace(temp_name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            Path(temp_name).unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)


def fsync_dir(directory: Path) -> None:
    """Make a rename in ``directory`` durable (POSIX: the directory entry is data too)."""
    if sys.platform == "win32":  # pragma: no cover - directories cannot be opened there
        return
    fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def file_kind(mode: int) -> str:
    """What a file that is not a regular one is, for messages: ``a FIFO``..."""
    kinds = [
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ]
    return next((name for test, name in kinds if test(mode)), "a file of another kind")


def check_replaceable(path: Path, field: str = "output", hint: str = "") -> None:
    """Refuse (InvalidInput naming ``field``, ``hint`` added) a ``path`` that a temporary
    file must not be renamed over: anything but a regular file or nothing. A symlink is
    refused too, whatever it names: replacing the link would leave its target as it was,
    and following it is no better for links such as /dev/stdout (``>> log``: renaming
    over the log would drop what it held)."""
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        return
    if stat.S_ISLNK(mode):
        problem = f"is a symbolic link (to {os.readlink(path)}); name the file itself"
    elif not stat.S_ISREG(mode):
        problem = (
            f"is {file_kind(mode)}, not a regular file; give the name of a new file or of a "
            "regular file to replace"
        )
    else:
        return
    raise InvalidInput(f"{path} {problem}{f' ({hint})' if hint else ''}", field)

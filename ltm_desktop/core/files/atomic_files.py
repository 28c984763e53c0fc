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
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, TextIO, cast

from ltm_desktop.core.errors import InvalidInput


def replace_text(
    path: Path, text: str, *, prefix: str, suffix: str = ".tmp", mode: int | None = None
) -> None:
    """Replace ``path`` with ``text``: readers see the old file or the new one, whole."""
    with replacing(path, prefix=prefix, suffix=suffix, mode=mode) as handle:
        handle.write(text)


@contextlib.contextmanager
def replacing(
    path: Path,
    *,
    prefix: str = "",
    suffix: str = ".tmp",
    mode: int | None = None,
    newline: str = "",
    durable: bool = True,
) -> Iterator[TextIO]:
    """A text file to write that replaces ``path`` when the block ends without an error,
    and is removed when it raises: readers see the old file or the new one, whole.

    The temporary file (``prefix``…``suffix`` beside ``path``; by default
    ``.NAME.…tmp``) gets ``mode`` if set. ``durable``: it is synced before the rename and
    the directory after it, so that after a power cut the file holds either version,
    never an empty or partial one (off for scratch state a hook writes on every turn).
    """
    with _beside(path, prefix, suffix, mode, durable, newline) as handle:
        yield cast(TextIO, handle)


def replace_bytes(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """``replace_text`` for bytes (an icon)."""
    with _beside(path, "", ".tmp", mode, True, None) as handle:
        handle.write(data)


@contextlib.contextmanager
def _beside(
    path: Path, prefix: str, suffix: str, mode: int | None, durable: bool, newline: str | None
) -> Iterator[IO[Any]]:
    """The temporary file of ``replacing`` (text) or ``replace_bytes`` (``newline`` None)."""
    fd, temp_name = tempfile.mkstemp(
        dir=path.parent, prefix=prefix or f".{path.name}.", suffix=suffix
    )
    try:
        binary = newline is None
        opened = (
            os.fdopen(fd, "wb") if binary else os.fdopen(fd, "w", encoding="utf-8", newline=newline)
        )
        with opened as handle:
            yield handle
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temp_name, mode)
        os.replace(temp_name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            Path(temp_name).unlink(missing_ok=True)
        raise
    if durable:
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

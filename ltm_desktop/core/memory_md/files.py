"""Writing MEMORY.md files so that a reader, a crash or a power cut never sees half a file."""

from __future__ import annotations

from pathlib import Path

from ltm_desktop.core.files.atomic_files import replace_text
from ltm_desktop.core.files.filelock import make_private_dirs

TEMP_PREFIX = ".MEMORY."
TEMP_SUFFIX = ".tmp"


def write_atomically(path: Path, text: str) -> None:
    """Replace ``path`` with ``text``: readers see the old file or the new one, whole.

    The temp file is synced before the rename and the directory after it, so after a
    power cut the file holds either version, never an empty or partial one.
    """
    make_private_dirs(path.parent, within=path.parents[2])  # the data dir: precis/<scope>/
    replace_text(path, text, prefix=TEMP_PREFIX, suffix=TEMP_SUFFIX)


def read_text(path: Path) -> str:
    """The file as an outside reader sees it ("" when missing)."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""

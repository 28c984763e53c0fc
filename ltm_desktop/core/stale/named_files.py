"""Memories that name their files: the paths' rules, the ``file:`` search filter, and the
check that finds memories whose files are gone.

A memory's ``files`` are stored relative to its project's directory (the agent's working
directory that made the project), so they survive moving the checkout and read the same
for everyone. An absolute path inside the project is made relative; one outside it, or a
relative one climbing out with ``..``, is refused: a memory names its own project's files.
"""

from __future__ import annotations

import os
import posixpath
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ltm_desktop.core.clean_text import unstorable
from ltm_desktop.core.errors import InvalidInput, echoed

MAX_FILES = 50
MAX_PATH_CHARS = 1_000
CHECK_INTERVAL = 60.0  # seconds: a project's files are checked at most this often
MISSING_FILE = "a file it names no longer exists"
# ``file:PATH`` (or ``file:"a path with spaces"``) in a search filters by a named file.
_FILE_FILTER_RE = re.compile(r'(?:^|\s)file:(?:"([^"]*)"|(\S+))')


def check_files(value: object, root: str | None) -> tuple[str, ...]:
    """``value`` as the clean, relative, de-duplicated paths a memory stores.

    Args:
        root: the project's directory (absolute paths are made relative to it); None for a
            scope without one (global): only relative paths are accepted then.

    Raises:
        InvalidInput: not a list of paths, a path outside the project, too many.
    """
    if value is None:
        return ()
    if not isinstance(value, list | tuple):
        raise InvalidInput(f"files must be a list of paths, not {type(value).__name__}", "files")
    files: list[str] = []
    for raw in value:
        path = _relative(raw, root)
        if path not in files:
            files.append(path)
    if len(files) > MAX_FILES:
        raise InvalidInput(
            f"a memory may name at most {MAX_FILES} files; got {len(files)}", "files"
        )
    return tuple(files)


def _relative(raw: object, root: str | None) -> str:
    if not isinstance(raw, str) or not raw.strip():
        raise InvalidInput(f"files must be non-empty paths; got {echoed(raw)}", "files")
    problem = unstorable(raw)  # before any use: the file system takes no lone surrogate
    if problem is not None:
        raise InvalidInput(f"files: {echoed(raw)} {problem}", "files")
    if len(raw) > MAX_PATH_CHARS:
        raise InvalidInput(f"files: {echoed(raw)} is not a usable path", "files")
    text = raw.strip()
    if posixpath.isabs(text):
        if root is None:
            raise InvalidInput(
                f"files: {echoed(text)} is absolute, but this scope has no project directory; "
                "give paths relative to the project",
                "files",
            )
        path = _inside(text, root)
        if path is None:  # maybe spelled through a symlink of the project's directory
            path = _inside(os.path.realpath(text), root)
        if path is None:
            raise InvalidInput(
                f"files: {echoed(text)} is outside the project ({root}); a memory names "
                "files of its own project",
                "files",
            )
        return path
    path = posixpath.normpath(text)
    if path == ".." or path.startswith("../"):
        raise InvalidInput(f"files: {echoed(text)} is outside the project", "files")
    if path == ".":
        raise InvalidInput("files: name a file or directory, not the project itself", "files")
    return path


def _inside(path: str, root: str) -> str | None:
    relative = posixpath.relpath(posixpath.normpath(path), root)
    if relative == "." or relative == ".." or relative.startswith("../"):
        return None
    return relative


def split_file_filter(text: object) -> tuple[str | None, object]:
    """(the path of a ``file:`` filter, the query without it); (None, text) without one.

    Raises:
        InvalidInput: the filter's path is not storable text (as ``check_files``).
    """
    if not isinstance(text, str):
        return None, text
    found = _FILE_FILTER_RE.search(text)
    if found is None:
        return None, text
    path = posixpath.normpath((found.group(1) or found.group(2) or "").strip())
    problem = unstorable(path)  # no stored path can match it, and SQLite takes no surrogate
    if problem is not None:
        raise InvalidInput(f"query: the file: filter {echoed(path)} {problem}", "query")
    rest = (text[: found.start()] + " " + text[found.end() :]).strip()
    return (path if path not in ("", ".") else None), rest


@dataclass(frozen=True, slots=True)
class Missing:
    files: tuple[str, ...]  # the named files that are gone
    since: float  # when this process first found these gone (a file more: from then)


@dataclass(frozen=True, slots=True)
class Checked:
    at: float
    missing: dict[str, Missing]  # by memory id


class MissingFiles:
    """Which memories of a project name files that no longer exist, checked at most once
    per ``interval`` per project (a ``stat`` per named file; callers keep it off the GUI
    thread)."""

    def __init__(
        self,
        clock: Callable[[], float],
        interval: float = CHECK_INTERVAL,
        exists: Callable[[str], bool] = os.path.lexists,
    ) -> None:
        self._clock = clock
        self._interval = interval
        self._exists = exists
        self._checked: dict[str, Checked] = {}
        self._lock = threading.Lock()

    def missing(
        self,
        project_id: str,
        root: str | None,
        named: Callable[[], Sequence[tuple[str, tuple[str, ...]]]],
    ) -> dict[str, Missing]:
        """Memory id -> its missing files, for a project rooted at ``root``.

        Args:
            named: (id, files) of the project's active memories that name files; called
                only when the project is due for a check.
        """
        if root is None:
            return {}
        now = self._clock()
        with self._lock:
            last = self._checked.get(project_id)
            if last is not None and 0 <= now - last.at < self._interval:
                return last.missing
        before = last.missing if last is not None else {}
        found: dict[str, Missing] = {}
        for memory_id, files in named():
            gone = tuple(f for f in files if not self._exists(posixpath.join(root, f)))
            if gone:
                earlier = before.get(memory_id)  # the same files gone: since then
                same = earlier is not None and set(gone) <= set(earlier.files)
                found[memory_id] = Missing(gone, earlier.since if same and earlier else now)
        with self._lock:
            self._checked[project_id] = Checked(now, found)
        return found

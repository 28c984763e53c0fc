"""The hooks' log file: the user log dir's ``hooks.log``, kept under about 2 MiB.

A hook's stdout belongs to the agent, so what went wrong (or what was done) is written
here, one line per fact. A log that cannot be written is not an error either: the file
is opened only if it is a regular file (or absent), without waiting (a FIFO there would
hold the hook forever), and a failed write (a full disk) prints nothing, where logging's
handlers print a traceback on stderr.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from ltm_desktop.core.files.regular_files import open_regular

LOG_NAME = "hooks.log"
MAX_BYTES = 1024 * 1024  # then hooks.log becomes hooks.log.1 (one old file kept)
FORMAT = "%(asctime)s %(process)d %(levelname)s %(message)s"

log = logging.getLogger("ltm_desktop.hooks")


def log_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_log_dir("ltm-desktop", appauthor=False))


class QuietHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """A handler on the open log file that says nothing when a record cannot be written."""

    def handleError(self, record: logging.LogRecord) -> None:  # noqa: N802 - logging's name
        """Nothing: the agent may show a hook's stderr, and the log is not worth a word."""


def _open(path: Path) -> QuietHandler:
    """A handler appending to ``path`` (created 0600); OSError if it is no regular file."""
    fd = open_regular(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    return QuietHandler(os.fdopen(fd, "a", encoding="utf-8"))


def start_logging(prefix: str) -> Path | None:
    """Send ``ltm_desktop`` log records (INFO and up) to the log file; its path, or None
    when it cannot be opened (then they go nowhere: not to stderr either, which the agent
    may show).

    ``prefix`` (agent and event) starts every line, so one file serves every hook.
    """
    package = logging.getLogger("ltm_desktop")
    package.setLevel(logging.INFO)
    package.propagate = False
    try:
        path = log_dir() / LOG_NAME
        handler = _open(_rotated(path))
    except OSError:
        package.addHandler(logging.NullHandler())
        return None
    handler.setFormatter(logging.Formatter(FORMAT.replace("%(message)s", f"{prefix}: %(message)s")))
    handler.setLevel(logging.INFO)
    package.addHandler(handler)
    return path


def _rotated(path: Path) -> Path:
    """``path``, its directory made, and moved aside to ``.1`` first when too long."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        if path.stat().st_size > MAX_BYTES:
            os.replace(path, path.with_name(LOG_NAME + ".1"))
    except FileNotFoundError:
        pass
    return path

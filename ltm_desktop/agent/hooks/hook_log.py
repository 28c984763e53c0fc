"""The hooks' log file: the user log dir's ``hooks.log``, kept under about 2 MiB.

A hook's stdout belongs to the agent, so what went wrong (or what was done) is written
here, one line per fact. A log that cannot be written is not an error either.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

LOG_NAME = "hooks.log"
MAX_BYTES = 1024 * 1024  # then hooks.log becomes hooks.log.1 (one old file kept)
FORMAT = "%(asctime)s %(process)d %(levelname)s %(message)s"

log = logging.getLogger("ltm_desktop.hooks")


def log_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_log_dir("ltm-desktop", appauthor=False))


def start_logging(prefix: str) -> Path | None:
    """Send ``ltm_desktop`` log records (INFO and up) to the log file; its path, or None.

    ``prefix`` (agent and event) starts every line, so one file serves every hook.
    """
    try:
        directory = log_dir()
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        path = directory / LOG_NAME
        try:
            if path.stat().st_size > MAX_BYTES:
                os.replace(path, path.with_name(LOG_NAME + ".1"))
        except FileNotFoundError:
            pass
        handler = logging.FileHandler(path, encoding="utf-8")
    except OSError:
        return None
    handler.setFormatter(logging.Formatter(FORMAT.replace("%(message)s", f"{prefix}: %(message)s")))
    handler.setLevel(logging.INFO)
    package = logging.getLogger("ltm_desktop")
    package.addHandler(handler)
    package.setLevel(logging.INFO)
    package.propagate = False  # not also to stderr: the agent may show a hook's stderr
    return path

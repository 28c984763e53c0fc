"""Asking for an extraction from a hook: fail-open, and back at once.

The pre-compact hook calls ``request_extraction`` and must return well inside the
agent's budget, so the extraction itself always runs elsewhere: in the app or ``serve``
when one serves the data dir (the ``extract`` API method queues it there), else in a
detached ``ltm-desktop extract`` process (its own session, stdin and stdout on
/dev/null, stderr appended to ``<data dir>/logs/extract.log``). Without an extractor in
the config nothing happens at all: no socket, no process, no network.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the hook path stays light: config is imported when needed
    from ltm_desktop.core.settings.config import Settings

log = logging.getLogger(__name__)
CLIENT = "ltm-desktop-hook"
LOG_FILE = Path("logs") / "extract.log"
# Detached children; kept so that they are not reported as leaked while this process
# lives (a hook's process ends right after; nothing waits for them).
_spawned: list[subprocess.Popen[bytes]] = []


def request_extraction(
    *,
    transcript: Path | None,
    agent: str,
    cwd: str,
    session_id: str,
    data_dir: str | None,
    config: str | None,
    settings: Settings | None = None,
) -> None:
    """Have the transcript's durable facts extracted in the background. Never raises.

    Args:
        settings: the settings of ``config`` when the caller has them already (a hook
            does): the file is then not read again.
    """
    try:
        _request(transcript, agent, cwd, session_id, data_dir, config, settings)
    except Exception:  # fail open: the hook's answer must not depend on the extractor
        log.warning("could not ask for an extraction", exc_info=True)


def _request(
    transcript: Path | None,
    agent: str,
    cwd: str,
    session_id: str,
    data_dir: str | None,
    config: str | None,
    settings: Settings | None,
) -> None:
    from ltm_desktop.core.settings.config import load_settings
    from ltm_desktop.core.settings.paths import resolve_config_path, resolve_data_dir

    if transcript is None:
        log.info("no transcript: nothing to extract from")
        return
    if settings is None:
        settings, _ = load_settings(resolve_config_path(config))
    if not settings.extractor_configured:
        return  # no extractor: not even a look for the server
    path = str(Path(transcript).expanduser().absolute())
    directory = resolve_data_dir(data_dir)
    if _ask_server(directory, path, agent, cwd, session_id, _location(settings, config)):
        return
    command = [
        *_ltm_desktop(),
        "extract",
        "--transcript",
        path,
        "--agent",
        agent,
        "--cwd",
        cwd,
        "--session",
        session_id,
        "--data-dir",
        str(directory),
    ]
    if config:
        command += ["--config", str(Path(config).expanduser().absolute())]
    _spawn(command, directory)


def _location(settings: Settings, config: str | None) -> str | None:
    """The store the settings name, as a server names it (None: the data dir's SQLite
    file); "" when the database URL is bad (no server is asked, the command says why)."""
    from ltm_desktop.core.errors import BadDatabaseUrl
    from ltm_desktop.core.settings.launch import chosen_database_url
    from ltm_desktop.core.settings.paths import resolve_config_path

    try:
        url = chosen_database_url(None, settings, resolve_config_path(config))
    except BadDatabaseUrl:
        return ""
    return None if url is None else url.display


def _ask_server(
    data_dir: Path,
    transcript: str,
    agent: str,
    cwd: str,
    session_id: str,
    location: str | None = None,
) -> bool:
    """Whether the server of ``data_dir`` took the request (False: none runs, it serves
    another store, or it has no extractor configured, e.g. it was started with another
    config). ``location``: as ``find_server`` takes it."""
    from ltm_desktop.agent.access import AccessError, Unavailable
    from ltm_desktop.agent.connect import find_server
    from ltm_desktop.api.calls import ApiCalls
    from ltm_desktop.core.seams import NO_EXTRACTOR

    if location == "":
        return False
    access = find_server(data_dir, CLIENT, location=location)
    if access is None:
        return False
    try:
        result = ApiCalls(access).extract(
            cwd=cwd, transcript_path=transcript, agent=agent, session_id=session_id
        )
    except (AccessError, Unavailable) as exc:
        log.warning("the server refused the extraction: %s", exc)
        return False
    finally:
        access.close()
    if result["started"]:
        return True
    reason = result["reason"] or ""
    log.info("the server did not queue the extraction: %s", reason)
    return not reason.startswith(NO_EXTRACTOR.split(":")[0])  # busy: do not pile on


def _ltm_desktop() -> list[str]:
    """How to run this installation's ``ltm-desktop``."""
    if getattr(sys, "frozen", False):  # a PyInstaller build: the executable is the app
        return [sys.executable]
    script = Path(sys.executable).with_name("ltm-desktop")
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [sys.executable, "-m", "ltm_desktop"]


def _spawn(command: list[str], data_dir: Path) -> None:
    log_fd = _open_log(data_dir)
    try:
        child = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=log_fd if log_fd is not None else subprocess.DEVNULL,
            start_new_session=True,  # not killed with the hook's process group
            close_fds=True,
        )
    finally:
        if log_fd is not None:
            os.close(log_fd)
    _spawned.append(child)


def _open_log(data_dir: Path) -> int | None:
    """The log's descriptor (append, 0600, never through a symlink, only a regular file
    and without waiting: a FIFO there held the hook); None when the data dir does not
    exist yet (the child creates it) or the log cannot be opened."""
    from ltm_desktop.core.files.regular_files import open_regular

    if not data_dir.is_dir():
        return None
    path = data_dir / LOG_FILE
    try:
        path.parent.mkdir(mode=0o700, exist_ok=True)
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
        return open_regular(path, flags, 0o600)
    except OSError as exc:
        log.info("no extraction log at %s: %s", path, exc)
        return None

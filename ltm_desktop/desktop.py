"""``ltm-desktop``: the desktop app plus the agent API on a background thread.

An entry point (like cli.py and serve.py): it composes store, service, API
server and window, and owns their shutdown order.
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ltm_desktop.agent.long_lived import agent_workers
from ltm_desktop.api.http.options import http_options
from ltm_desktop.api.server_thread import ServerThread
from ltm_desktop.backups import backup_if_due
from ltm_desktop.core.errors import LtmError
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.launch import Launch, resolve_launch
from ltm_desktop.core.settings.paths import resolve_data_dir
from ltm_desktop.launching import OpenedService, open_launch
from ltm_desktop.serve import server_options

if TYPE_CHECKING:
    from ltm_desktop.api.http.server import HttpServer

log = logging.getLogger(__name__)

NO_DISPLAY = (
    "no display found (neither $DISPLAY nor $WAYLAND_DISPLAY is set), so the desktop "
    "window cannot open. Run `ltm-desktop serve` for the agent API without a window, or set "
    "QT_QPA_PLATFORM=offscreen to run the app headless."
)


def display_problem() -> str | None:
    """Why a window cannot open here, or None (Qt would abort the process instead)."""
    if not sys.platform.startswith("linux") or os.environ.get("QT_QPA_PLATFORM"):
        return None
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return None
    return NO_DISPLAY


Ask = Callable[[str, Path], Path | None]


HEADLESS_PLATFORMS = ("offscreen", "minimal")  # Qt platforms nobody can see or click


def _ask_in_a_window(message: str, data_dir: Path) -> Path | None:
    if os.environ.get("QT_QPA_PLATFORM", "").split(":")[0] in HEADLESS_PLATFORMS:
        return None  # a dialog nobody can answer would hang: the terminal gets the error
    from ltm_desktop.gui.window.startup_error import ask_after_startup_error

    return ask_after_startup_error(message, data_dir)


def open_or_ask(
    data_dir: str | None,
    config: str | None,
    *,
    ask: Ask,
    database_url: str | None = None,
    **kwargs: Any,
) -> OpenedService:
    """The app's service; when its data cannot be opened (a corrupt or newer database, an
    unusable folder), ``ask`` shows why and returns another data dir to try, or None: the
    error is then raised (and printed for a terminal) as before. A PostgreSQL store that
    cannot be opened is not asked about: another data folder would not change the store."""
    while True:
        launch = resolve_launch(data_dir, config, database_url)
        try:
            return open_launch(
                launch, background=True, offline=True, workers=agent_workers, **kwargs
            )
        except (LtmError, OSError) as exc:
            if launch.database_url is not None:
                raise
            message = (
                str(exc)
                if isinstance(exc, LtmError)
                else f"cannot use {exc.filename}: {exc.strerror or exc}"
            )
            chosen = ask(message, resolve_data_dir(data_dir))
            if chosen is None:
                raise
            data_dir = str(chosen)


def launch(
    data_dir: str | None,
    config: str | None,
    *,
    demo: bool,
    warn: Callable[[Sequence[str]], None],
    database_url: str | None = None,
) -> int:
    """Open the data, serve the API and run the window; returns the exit code.
    ``database_url``: ``--database-url`` (None: the environment's, else the config file's).

    However it ends (also when the data cannot be opened or the window cannot be built),
    the API's socket is closed and removed and ``--demo``'s temporary folder is deleted;
    the error then goes to the caller, which prints it in one line.
    """
    problem = display_problem()
    if problem:
        raise LtmError(problem)
    demo_dir = Path(tempfile.mkdtemp(prefix="ltm-desktop-demo-")) if demo else None
    try:
        return _launch(
            data_dir if demo_dir is None else str(demo_dir), config, demo_dir, warn, database_url
        )
    finally:
        if demo_dir is not None:
            shutil.rmtree(demo_dir, ignore_errors=True)


def _launch(
    data_dir: str | None,
    config: str | None,
    demo_dir: Path | None,
    warn: Callable[[Sequence[str]], None],
    database_url: str | None = None,
) -> int:
    clock = None
    if demo_dir is not None:
        from ltm_desktop.gui.demo import DemoClock

        clock = DemoClock()
    opened = open_or_ask(
        data_dir,
        config,
        ask=_ask_in_a_window,
        database_url=database_url,
        **({"clock": clock} if clock else {}),
    )
    service = opened.service
    backing_up: threading.Thread | None = None
    web: HttpServer | None = None
    options = server_options(service.paths.data_dir, None, None, opened.config_path)
    api = ServerThread(service, service.paths.data_dir, options)
    try:
        warn(opened.warnings)
        if demo_dir is not None:
            from ltm_desktop.gui.demo import fill_demo_data

            fill_demo_data(service, clock=clock)
        elif opened.launch.database_url is None:
            # A server's database is backed up on the server (pg_dump, its own regime);
            # `ltm-desktop backup` makes one on request.
            backing_up = start_backup_if_due(opened.launch, warn)
        api.start()
        web = start_http(service, warn)
        api.http_endpoint = web.describe() if web is not None else None
        from ltm_desktop.gui.app import run_gui

        label = str(service.paths.data_dir)  # the window's title: where the memories are
        if demo_dir:
            label = "demo data (temporary)"
        elif opened.launch.database_url is not None:
            label = opened.launch.store_location
        return run_gui(service, data_dir_label=label, api=api)
    finally:
        try:
            if web is not None:
                web.stop()
            api.stop()  # closes the socket and removes it (and the endpoint file)
            if demo_dir is not None and options.socket_path is not None:
                # The demo's socket is named after its temporary folder: nobody else
                # ever takes its lock, so the lock file goes with it.
                lock = options.socket_path.with_name(options.socket_path.name + ".lock")
                lock.unlink(missing_ok=True)
            if backing_up is not None:
                backing_up.join()  # a backup cut short would be no backup
        finally:
            service.close()


def start_backup_if_due(launch: Launch, warn: Callable[[Sequence[str]], None]) -> threading.Thread:
    """The automatic backup at start, on a thread of its own: SQLite's online backup reads
    a snapshot while the app works, so the window need not wait (a large database takes
    tens of seconds). A failure is a warning; the next start tries again."""

    def work() -> None:
        try:
            backup_if_due(launch)
        except (LtmError, OSError) as exc:
            warn([f"the automatic backup failed: {exc}"])

    thread = threading.Thread(target=work, name="ltm-backup", daemon=True)
    thread.start()
    return thread


def start_http(service: MemoryService, warn: Callable[[Sequence[str]], None]) -> HttpServer | None:
    """The HTTP API on its own thread when ``[http] listen`` asks for it; a failure is a
    warning, and the app opens without it."""
    try:
        options = http_options(None, service.settings)
        if options is None:
            return None
        from ltm_desktop.api.http.server import HttpServer

        web = HttpServer(service, options)
        web.start()
    except (LtmError, OSError) as exc:
        warn([f"the HTTP API is not served: {exc}"])
        return None
    log.info("serving the HTTP API on %s", web.describe())
    return web

"""Start the desktop app on a ready MemoryService (the composition root builds and passes it)."""

from __future__ import annotations

import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEventLoop, QSettings, QTimer, qVersion
from PySide6.QtWidgets import QApplication

from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.api_status import ApiStatus
from ltm_desktop.gui.dialogs.connect import ABOUT_ICON_SIZE, AboutDialog, app_icon
from ltm_desktop.gui.errors import install_excepthook
from ltm_desktop.gui.window.main_window import MainWindow
from ltm_desktop.resources import DESKTOP_ID

ORGANIZATION = "ltm-desktop"
APPLICATION = "ltm-desktop"
DESKTOP_FILE = DESKTOP_ID  # the desktop entry's name: Wayland app_id, taskbar grouping


# Workers (page loads, searches, the API server) run Python too. Every model call the UI
# thread makes needs the GIL, and by default a busy worker keeps it for up to 5 ms each
# time: painting 100k-row pages then stalled the UI up to 100 ms (bench/gui_bench.py).
# With 1 ms the worst stall measured 27-38 ms.
UI_SWITCH_INTERVAL = 0.001


def application(argv: list[str] | None = None) -> QApplication:
    """The QApplication, created once; it follows the system's light or dark palette."""
    app = QApplication.instance()
    if app is None:
        app = QApplication(argv if argv is not None else sys.argv)
    assert isinstance(app, QApplication)
    app.setOrganizationName(ORGANIZATION)
    app.setApplicationName(APPLICATION)
    app.setApplicationDisplayName("ltm-desktop")
    app.setDesktopFileName(DESKTOP_FILE)
    app.setWindowIcon(app_icon())
    sys.setswitchinterval(UI_SWITCH_INTERVAL)
    return app


def run_gui(
    service: MemoryService,
    *,
    data_dir_label: str,
    api: ApiStatus | None = None,
    argv: list[str] | None = None,
) -> int:
    """Open the main window and run the event loop; returns the exit code.

    The caller keeps ownership of ``service`` (and of the API server behind ``api``)
    and closes them after this returns.
    """
    app = application(argv)
    settings = QSettings(ORGANIZATION, APPLICATION)
    window = MainWindow(service, settings=settings, data_dir_label=data_dir_label, api=api)
    previous_hook = sys.excepthook
    install_excepthook(window.ctx.errors)
    previous_signals = _quit_on_signals(app)
    wake = QTimer(interval=250)  # lets Python run its signal handlers during exec()
    wake.timeout.connect(lambda: None)
    wake.start()
    window.show()
    try:
        return app.exec()
    finally:
        wake.stop()
        window.shutdown()
        sys.excepthook = previous_hook
        for signum, handler in previous_signals.items():
            signal.signal(signum, handler)


def _quit_on_signals(app: QApplication) -> dict[int, Any]:
    """SIGINT/SIGTERM end the event loop normally, so the API server and the database
    shut down in order (and --demo removes its temporary data)."""
    previous: dict[int, Any] = {}
    for signum in (signal.SIGINT, signal.SIGTERM):
        previous[signum] = signal.signal(signum, lambda *_: app.quit())
    return previous


def _wait_until(condition: Callable[[], bool], timeout: float) -> bool:
    """Run the event loop until ``condition()`` holds or ``timeout`` seconds pass."""
    deadline = time.monotonic() + timeout
    loop = QEventLoop()
    poll = QTimer(interval=10)

    def tick() -> None:
        if condition() or time.monotonic() > deadline:
            loop.quit()

    poll.timeout.connect(tick)
    poll.start()
    if not condition():
        loop.exec()
    poll.stop()
    return condition()


def check_window(service: MemoryService, settings_file: Path) -> str:
    """Open the main window and the About box once, then close them (for ``--self-test``).

    Proves that Qt, its platform plugin and the packaged icon load; returns what was
    seen. Raises RuntimeError when something is missing.
    """
    app = application(sys.argv[:1])
    settings = QSettings(str(settings_file), QSettings.Format.IniFormat)
    window = MainWindow(service, settings=settings, data_dir_label="self-test")
    try:
        window.show()
        if not _wait_until(window.is_idle, timeout=15):
            raise RuntimeError("the main window did not finish loading within 15 s")
        if window.windowIcon().isNull():
            raise RuntimeError("the window has no icon (packaged PNGs not found)")
        about = AboutDialog(service, window)
        pixmap = about.icon_label.pixmap()
        about.deleteLater()
        if pixmap.isNull() or round(pixmap.deviceIndependentSize().width()) != ABOUT_ICON_SIZE:
            raise RuntimeError("the About box shows no icon")
        shot = window.grab()
        sizes = len(app.windowIcon().availableSizes())
        return (
            f"Qt {qVersion()} on {app.platformName()!r}: main window {shot.width()}x"
            f"{shot.height()} rendered, icon at {sizes} sizes, About box"
        )
    finally:
        window.shutdown()
        window.close()
        window.deleteLater()

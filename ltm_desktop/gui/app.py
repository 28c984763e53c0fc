"""Start the desktop app on a ready MemoryService (the composition root builds and passes it)."""

from __future__ import annotations

import sys

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.api_status import ApiStatus
from ltm_desktop.gui.errors import install_excepthook
from ltm_desktop.gui.main_window import MainWindow

ORGANIZATION = "ltm-desktop"
APPLICATION = "ltm-desktop"
DESKTOP_FILE = "io.github.ltm_desktop"


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
    window.show()
    try:
        return app.exec()
    finally:
        window.shutdown()
        sys.excepthook = previous_hook

"""The dialog shown when the app cannot open its data at start.

A corrupt or newer database, or a folder that cannot be used, used to be a line in a
terminal: launched from a menu, nobody saw it. The dialog says what is wrong and offers
what a person can do: open another data folder, show the file, or quit.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ltm_desktop.core.settings.paths import DataPaths
from ltm_desktop.gui.mnemonics import assign_mnemonics

DirChooser = Callable[[QWidget], Path | None]


def choose_folder(parent: QWidget) -> Path | None:
    """A folder picked in the platform's dialog, or None when cancelled."""
    chosen = QFileDialog.getExistingDirectory(parent, "Open another data folder")
    return Path(chosen) if chosen else None


class StartupErrorDialog(QDialog):
    """What went wrong, and the three ways on.

    Signals:
        file_shown(str): the folder holding the database was opened in the file manager.
    """

    file_shown = Signal(str)

    def __init__(
        self,
        message: str,
        data_dir: Path,
        parent: QWidget | None = None,
        choose_dir: DirChooser = choose_folder,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("ltm-desktop cannot open its data")
        self.chosen_dir: Path | None = None
        self.db_path = DataPaths(data_dir).db_path
        self._choose_dir = choose_dir
        self.message = QLabel(self)
        self.message.setWordWrap(True)
        self.message.setTextFormat(self.message.textFormat().PlainText)
        self.message.setText(message)
        self.message.setTextInteractionFlags(
            self.message.textInteractionFlags().TextSelectableByMouse
        )
        advice = QLabel(
            f"The database is {self.db_path}. Nothing was changed. You can open another "
            "data folder (a backup restored elsewhere, or a new empty one), show the file "
            "to move or inspect it (ltm-desktop restore brings back a backup), or quit.",
            self,
        )
        advice.setWordWrap(True)
        self.open_button = QPushButton("Open another data folder…", self)
        self.show_button = QPushButton("Show the file", self)
        self.quit_button = QPushButton("Quit", self)
        buttons = QDialogButtonBox(self)
        buttons.addButton(self.open_button, QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton(self.show_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(self.quit_button, QDialogButtonBox.ButtonRole.RejectRole)
        self.open_button.clicked.connect(self.on_open_other)
        self.show_button.clicked.connect(self.on_show_file)
        self.quit_button.clicked.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.message)
        layout.addWidget(advice)
        layout.addWidget(buttons)
        assign_mnemonics(self)
        self.setMinimumWidth(520)

    def on_open_other(self) -> None:
        chosen = self._choose_dir(self)
        if chosen is not None:
            self.chosen_dir = chosen
            self.accept()

    def on_show_file(self) -> None:
        folder = self.db_path.parent if self.db_path.parent.is_dir() else self.db_path
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder)))
        self.file_shown.emit(str(folder))


def ask_after_startup_error(message: str, data_dir: Path) -> Path | None:
    """Show the dialog (creating the application if needed); the folder to open
    instead, or None to quit."""
    from ltm_desktop.gui.app import application

    application()
    dialog = StartupErrorDialog(message, data_dir)
    dialog.exec()
    return dialog.chosen_dir

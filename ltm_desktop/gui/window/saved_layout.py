"""What the window remembers of its layout from one run to the next: its geometry, the
splitter, the tab in front of each tab bar, and the widths the person gave each table's
columns."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtWidgets import QSplitter, QTableView, QTabWidget, QWidget

from ltm_desktop.gui.memory_list.view_state import column_widths, restore_column_widths


def to_int(value: object) -> int:
    """A saved setting as an int (QSettings gives strings from INI files); 0 when not one."""
    try:
        return int(str(value or 0))
    except ValueError:
        return 0


@dataclass(frozen=True)
class SavedLayout:
    """The window's parts whose layout is kept in ``settings``: ``tabs`` and ``tables`` by
    their settings names (``tables``: every table whose column widths the person may set)."""

    settings: QSettings
    window: QWidget
    splitter: QSplitter
    tabs: dict[str, QTabWidget]
    tables: dict[str, QTableView]

    def restore(self) -> None:
        settings = self.settings
        geometry = settings.value("geometry")
        if isinstance(geometry, QByteArray):
            self.window.restoreGeometry(geometry)
        splitter = settings.value("splitter")
        if isinstance(splitter, QByteArray):
            self.splitter.restoreState(splitter)
        for key, tabs in self.tabs.items():
            index = to_int(settings.value(key, 0))
            tabs.setCurrentIndex(index if 0 <= index < tabs.count() else 0)
        for name, view in self.tables.items():
            restore_column_widths(view, settings.value(f"columns/{name}"))

    def save(self) -> None:
        """Into ``settings`` (written to disk by their ``sync``)."""
        settings = self.settings
        settings.setValue("geometry", self.window.saveGeometry())
        settings.setValue("splitter", self.splitter.saveState())
        for key, tabs in self.tabs.items():
            settings.setValue(key, tabs.currentIndex())
        for name, view in self.tables.items():
            settings.setValue(f"columns/{name}", column_widths(view))

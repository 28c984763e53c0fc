"""Edit › Find secrets in all memories…: credentials already stored, listed for a person.

The scan reads every memory (``core.secret_scan.find_stored``) on a worker; the
dialog lists where each credential is (never the credential), and opening a row shows
its memory, to edit it, or remove and erase it.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QMainWindow,
    QMenu,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ltm_desktop.core.privacy.secret_scan import SecretHit, find_stored
from ltm_desktop.gui.context import AppContext
from ltm_desktop.gui.formatting import count_label
from ltm_desktop.gui.mnemonics import assign_mnemonics

COLUMNS = ("Memory", "Scope", "Where", "Kind", "")


class SecretsDialog(QDialog):
    """The scan's outcome; double-clicking a row opens its memory.

    Signals:
        memory_activated(str): the person opened this memory.
    """

    memory_activated = Signal(str)

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Secrets in stored memories")
        self.resize(760, 360)
        self.summary = QLabel("Scanning every memory…", self)
        self.table = QTableWidget(0, len(COLUMNS), self)
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.cellDoubleClicked.connect(self.on_open)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.table, 1)
        layout.addWidget(buttons)
        assign_mnemonics(self)
        self.hits: list[SecretHit] | None = None
        self._names = {p.project_id: p.name for p, _ in ctx.service.projects()}
        ctx.runner.run(
            lambda: find_stored(ctx.service),
            self.show_hits,
            lambda exc: ctx.errors.report(exc, "look for secrets"),
        )

    def show_hits(self, hits: list[SecretHit]) -> None:
        self.hits = hits
        if not hits:
            self.summary.setText("No stored memory holds a credential.")
            return
        self.summary.setText(
            f"{count_label(len(hits), 'memory holds', 'memories hold')} a credential. "
            "Open one to edit it, or remove it and erase it from the Trash."
        )
        self.table.setRowCount(len(hits))
        for row, hit in enumerate(hits):
            cells = (
                hit.memory.title,
                self._names.get(hit.memory.project_id, hit.memory.project_id),
                f"{hit.field}, line {hit.line}, column {hit.column}",
                hit.kind,
                "in the Trash" if hit.memory.disabled else "",
            )
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setData(Qt.ItemDataRole.UserRole, hit.memory.id)
                self.table.setItem(row, column, item)

    def on_open(self, row: int, _column: int) -> None:
        item = self.table.item(row, 0)
        if item is not None:
            self.memory_activated.emit(item.data(Qt.ItemDataRole.UserRole))


class FindSecrets:
    """The Edit menu's command, and the dialog it last opened."""

    def __init__(
        self, window: QMainWindow, ctx: AppContext, open_memory: Callable[[str], None]
    ) -> None:
        self._window, self._ctx, self._open_memory = window, ctx, open_memory
        self.dialog: SecretsDialog | None = None
        self.action = QAction("Find &secrets in all memories…", window)
        self.action.setStatusTip("List the stored memories that hold a credential")
        self.action.setShortcut(QKeySequence("Ctrl+Shift+K"))
        self.action.triggered.connect(self.show)
        for menu_action in window.menuBar().actions():  # after the Edit menu's last entry
            menu = menu_action.menu()
            if isinstance(menu, QMenu) and menu_action.text() == "&Edit":
                menu.addSeparator()
                menu.addAction(self.action)

    def show(self) -> None:
        self.dialog = SecretsDialog(self._ctx, self._window)
        self.dialog.memory_activated.connect(self._open_memory)
        self.dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.dialog.open()

"""The Trash's "Erase permanently" and "Empty trash": the only deletions for good.

Each asks first (a window-modal question that defaults to Cancel), then erases off the UI
thread (``MemoryService.erase`` / ``empty_trash``) and says what happened on the status
bar. There is no undo: the confirmation says so.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QMessageBox, QPushButton, QWidget

from ltm_desktop.core.erasing_service import Erased
from ltm_desktop.gui.actions import MemoryActions
from ltm_desktop.gui.context import AppContext
from ltm_desktop.gui.formatting import count_label

CLEANUP_NOTE = "There is no undo. Backups taken before still hold them."


class EraseControls:
    """Two buttons for the Trash panel, and the questions they ask."""

    def __init__(
        self,
        ctx: AppContext,
        actions: MemoryActions,
        selected: Callable[[], list[str]],
        project_id: Callable[[], str],
        parent: QWidget,
    ) -> None:
        self._ctx = ctx
        self._actions = actions
        self._selected = selected
        self._project_id = project_id
        self._parent = parent
        self.erase_button = QPushButton("Erase permanently…", parent)
        self.erase_button.setEnabled(False)
        self.erase_button.setToolTip("Delete the selected memories for good, history included")
        self.empty_button = QPushButton("Empty trash…", parent)
        self.empty_button.setToolTip("Erase every memory in this scope's Trash for good")
        self.confirmation: QMessageBox | None = None  # the open question, if any
        self.erase_button.clicked.connect(self.ask_erase)
        self.empty_button.clicked.connect(self.ask_empty)

    def on_selection(self, ids: list[str]) -> None:
        self.erase_button.setEnabled(bool(ids))

    def _ask(self, title: str, text: str, then: Callable[[], None]) -> None:
        box = QMessageBox(QMessageBox.Icon.Warning, title, text, parent=self._parent)
        erase = box.addButton("Erase permanently", QMessageBox.ButtonRole.DestructiveRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.setInformativeText(CLEANUP_NOTE)

        def finished() -> None:
            self.confirmation = None
            if box.clickedButton() is erase:
                then()
            box.deleteLater()

        box.finished.connect(finished)
        self.confirmation = box
        box.open()

    def ask_erase(self) -> None:
        ids = self._selected()
        if not ids:
            return
        what = count_label(len(ids), "memory", "memories")
        service = self._ctx.service
        self._ask(
            "Erase permanently?",
            f"Erase {what} for good? Their text leaves the database and its history.",
            lambda: self._run(lambda: [service.erase(i, "gui") for i in ids]),
        )

    def ask_empty(self) -> None:
        project_id, service = self._project_id(), self._ctx.service
        self._ask(
            "Empty the Trash?",
            "Erase every memory in this scope's Trash for good?",
            lambda: self._run(lambda: [service.empty_trash(project_id, "gui")]),
        )

    def _run(self, work: Callable[[], list[Erased]]) -> None:
        self._ctx.runner.run(
            work,
            self._done,
            lambda exc: self._ctx.errors.report(exc, "erase memories"),
        )

    def _done(self, results: list[Erased]) -> None:
        count = sum(len(r.ids) for r in results)
        self._actions.message.emit(f"Erased {count_label(count, 'memory', 'memories')} for good")

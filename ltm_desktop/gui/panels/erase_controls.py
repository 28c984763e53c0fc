"""The Trash's "Erase permanently" and "Empty trash": the only deletions for good.

Each first finds out exactly which memories it would erase (the whole selection, read on
a worker if the list has not read it all; or every memory in the scope's Trash), then
asks, naming that number (a window-modal question that defaults to Cancel), then erases
those memories and no others off the UI thread (``MemoryService.erase_many``: a few
hundred to a transaction, with progress on the status bar) and says what happened,
part-way failures included. There is no undo: the confirmation says so.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QMessageBox, QPushButton, QWidget

from ltm_desktop.core.backend import MAX_PAGE
from ltm_desktop.core.errors import LtmError
from ltm_desktop.core.privacy.erasing_service import Erased
from ltm_desktop.core.records import ListQuery
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.actions import MemoryActions
from ltm_desktop.gui.context import AppContext
from ltm_desktop.gui.formatting import count_label

CLEANUP_NOTE = "There is no undo. Backups taken before still hold them."
Versions = dict[str, float]
Selection = Callable[[Callable[[Versions], None]], None]  # calls back with the whole selection


def trash_ids(service: MemoryService, project_id: str) -> list[str]:
    """Worker side: the id of every memory in the scope's Trash now."""
    query = ListQuery(only_disabled=True, include_expired=True, order_by="disabled_at")
    ids: list[str] = []
    while True:
        page = service.list_memories(project_id, replace(query, limit=MAX_PAGE, offset=len(ids)))
        ids += [m.id for m in page]
        if len(page) < MAX_PAGE:
            return list(dict.fromkeys(ids))


def erased_text(result: Erased, asked: int) -> str:
    """What an erase did, in words: how many of how many, and why not the others."""
    erased = len(result.ids)
    what = count_label(erased, "memory", "memories")
    text = (
        f"Erased {what} for good."
        if erased == asked
        else f"Erased {erased:,} of {asked:,} memories for good."
    )
    if result.refused:
        _, exc = result.refused[0]
        not_erased = count_label(len(result.refused), "memory was", "memories were")
        text += f" {not_erased} not erased: {exc}"
    if result.stopped is not None:
        text += f" Then it stopped: {result.stopped}"
    return text


class EraseControls(QObject):
    """Two buttons for the Trash panel, and the questions they ask.

    Signals:
        busy_changed(bool): an erase (or the reading of what it would erase) started or ended.
    """

    busy_changed = Signal(bool)
    _progress = Signal(str)  # from the worker: shown on the status bar

    def __init__(
        self,
        ctx: AppContext,
        actions: MemoryActions,
        selection: Selection,
        project_id: Callable[[], str],
        parent: QWidget,
    ) -> None:
        super().__init__(parent)
        self._ctx = ctx
        self._actions = actions
        self._selection = selection
        self._project_id = project_id
        self._parent = parent
        self.busy = False
        self.erase_button = QPushButton("Erase permanently…", parent)
        self.erase_button.setEnabled(False)
        self.erase_button.setToolTip("Delete the selected memories for good, history included")
        self.empty_button = QPushButton("Empty trash…", parent)
        self.empty_button.setToolTip("Erase every memory in this scope's Trash for good")
        self.confirmation: QMessageBox | None = None  # the open question, if any
        self.erase_button.clicked.connect(self.ask_erase)
        self.empty_button.clicked.connect(self.ask_empty)
        self._progress.connect(actions.message, Qt.ConnectionType.QueuedConnection)

    def _set_busy(self, busy: bool) -> None:
        if busy != self.busy:
            self.busy = busy
            self.busy_changed.emit(busy)

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
            else:
                self._set_busy(False)
            box.deleteLater()

        box.finished.connect(finished)
        self.confirmation = box
        box.open()

    def ask_erase(self) -> None:
        """Erase the whole selection, once its memories are known and the person agrees."""
        if self.busy:
            return

        def ask(versions: Versions) -> None:
            ids = list(versions)
            what = count_label(len(ids), "memory", "memories")
            self._set_busy(True)
            self._ask(
                "Erase permanently?",
                f"Erase {what} for good? Their text leaves the database and its history.",
                lambda: self._erase(ids),
            )

        self._selection(ask)

    def ask_empty(self) -> None:
        """Erase every memory in the scope's Trash as it is now (those put there after the
        question are not erased)."""
        if self.busy:
            return
        project_id, service = self._project_id(), self._ctx.service

        def ask(ids: list[str]) -> None:
            if not ids:
                self._set_busy(False)
                self._actions.message.emit("The Trash is already empty.")
                return
            every = "the only memory" if len(ids) == 1 else f"all {len(ids):,} memories"
            self._ask(
                "Empty the Trash?",
                f"Erase {every} in this scope's Trash for good?",
                lambda: self._erase(ids),
            )

        self._set_busy(True)
        self._ctx.runner.run(
            lambda: trash_ids(service, project_id), ask, self._failed("read the Trash")
        )

    def _failed(self, doing: str) -> Callable[[BaseException], None]:
        def failed(exc: BaseException) -> None:
            self._set_busy(False)
            # the core raises only before it erased anything (after: ``Erased.stopped``)
            nothing = " (nothing was erased)" if isinstance(exc, LtmError) else ""
            self._ctx.errors.report(exc, doing + nothing)

        return failed

    def _erase(self, ids: list[str]) -> None:
        service, asked = self._ctx.service, len(ids)

        def progress(done: int, of: int) -> None:
            self._progress.emit(f"Erasing: {done:,} of {of:,} done…")

        def done(result: Erased) -> None:
            self._set_busy(False)
            self._actions.message.emit(erased_text(result, asked))
            if result.stopped is not None:  # the database is in trouble: said at once
                self._ctx.errors.report(
                    result.stopped, f"erase the other {asked - len(result.ids):,}"
                )

        self._set_busy(True)
        self._ctx.runner.run(
            lambda: service.eraser.erase_many(ids, "gui", progress=progress),
            done,
            self._failed("erase memories"),
        )

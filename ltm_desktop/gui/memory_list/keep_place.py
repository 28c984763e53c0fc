"""After the app removes the selected rows (Delete, Move, Restore from the Trash), the row
that took their place is selected, or the last row, as file managers do: the keyboard
stays in the list and the next Delete acts on the next memory."""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, QObject
from PySide6.QtWidgets import QTableView

from ltm_desktop.gui.memory_list.view_state import ViewKeeper, row_spans
from ltm_desktop.gui.models.base import RowTableModel

Flag = QItemSelectionModel.SelectionFlag


class KeepPlace(QObject):
    """Watches one list. While the app writes (``on_writing(True)``) it notes where the
    selection starts; when a refresh then finds every selected row gone, it selects the
    row now at that place (or the last). Rows an agent removes on its own move nothing:
    only a write of the app arms it."""

    def __init__(self, view: QTableView, model: RowTableModel, keeper: ViewKeeper) -> None:
        super().__init__(view)
        self._view, self._model = view, model
        self._writing = False
        self._place = -1  # the first selected row when the app's write began; -1: unarmed
        self._had_selection = False  # at the refresh's start
        model.refresh_started.connect(self.on_refresh_started)
        model.modelAboutToBeReset.connect(self.on_reset)  # another scope, filter or sort
        keeper.restored.connect(self.on_restored)

    def on_writing(self, writing: bool) -> None:
        self._writing = writing
        if writing:
            spans = row_spans(self._view.selectionModel().selection())
            self._place = spans[0][0] if spans else -1

    def on_refresh_started(self) -> None:
        self._had_selection = self._view.selectionModel().hasSelection()

    def on_reset(self) -> None:
        self._place, self._had_selection = -1, False

    def on_restored(self) -> None:
        if self._place < 0 or not self._had_selection:
            return
        selection = self._view.selectionModel()
        if selection.hasSelection():  # the rows are still there (or some of them)
            if not self._writing:
                self._place = -1  # the write is done and they stayed: nothing to do
            return
        total = self._model.rowCount()
        place, self._place = self._place, -1
        if total:
            index = self._model.index(min(place, total - 1), 0)
            selection.setCurrentIndex(index, Flag.ClearAndSelect | Flag.Rows)
            self._view.scrollTo(index)

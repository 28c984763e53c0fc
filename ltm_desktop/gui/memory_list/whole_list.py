"""Select all over a paged list, held as a query: "every row of this list but these ids".

A view can only select rows, and a paged list has read a few hundred of its 100,000: a
selection of rows would either name placeholders or have to be narrowed to the rows read
(which made Delete after Ctrl+A move 200 of 10,187 memories). So when the whole list is
selected (Ctrl+A, Edit › Select all, Home then Shift+End) and not every row is read, this
object takes over: the view keeps one highlighted range (no index per row), rows the person
Ctrl+clicks off are remembered by id, and a bulk action gets a ``FilterSelection`` that the
core resolves. Any other gesture (a click, Shift+click, an arrow key) deselects rows that
were never read, which ends it: the selection is rows again.
"""

from __future__ import annotations

from PySide6.QtCore import QItemSelection, QItemSelectionModel, QObject, Signal
from PySide6.QtWidgets import QTableView

from ltm_desktop.core.bulk.selection import FilterSelection
from ltm_desktop.gui.memory_list.view_state import ViewKeeper, row_spans, spans_of
from ltm_desktop.gui.models.memory_model import MemoryQuery
from ltm_desktop.gui.models.sparse import SparseTableModel

Flag = QItemSelectionModel.SelectionFlag
MAX_EXCLUDED = 10_000  # rows Ctrl+clicked off before it is simpler to select rows


class WholeListSelection(QObject):
    """Watches a list view's selection; ``active`` while it is the whole list.

    Signals:
        changed(): the view's selection changed (and this object has looked at it).
    """

    changed = Signal()

    def __init__(self, view: QTableView, model: SparseTableModel, keeper: ViewKeeper) -> None:
        super().__init__(view)
        self._view = view
        self._model = model
        self._keeper = keeper
        self.active = False
        self._excluded: set[str] = set()
        self._applying = False
        view.selectionModel().selectionChanged.connect(self.on_selection_changed)
        model.modelAboutToBeReset.connect(self.on_reset)  # another query: rows again
        keeper.restored.connect(self.on_restored)
        model.dataChanged.connect(self.on_rows_arrived)

    # -- what it holds ----------------------------------------------------

    def count(self) -> int:
        return max(0, self._model.rowCount() - len(self._excluded)) if self.active else 0

    def excluded(self) -> frozenset[str]:
        return frozenset(self._excluded)

    def selection(self, project_id: str, query: MemoryQuery) -> FilterSelection:
        return FilterSelection(project_id, query.list_query(0, 0), frozenset(self._excluded))

    def leave(self) -> None:
        self.active = False
        self._excluded.clear()

    # -- following the view -----------------------------------------------

    def on_selection_changed(self, selected: QItemSelection, deselected: QItemSelection) -> None:
        if not (self._applying or self._keeper.busy):
            if self.active:
                self._follow(selected, deselected)
            else:
                self._enter_if_whole()
        self.changed.emit()

    def _enter_if_whole(self) -> None:
        total = self._model.rowCount()
        if not total or row_spans(self._view.selectionModel().selection()) != [(0, total - 1)]:
            return
        read = sum(last - first + 1 for first, last in self._model.loaded_spans(0, total - 1))
        if read < total:  # with every row read, rows are the whole list: nothing to hold
            self.active = True
            self._excluded.clear()

    def _follow(self, selected: QItemSelection, deselected: QItemSelection) -> None:
        """A Ctrl+click (off or on again) changes the ids left out; a gesture that deselects
        rows never read (a click, an arrow key, Shift+click) ends the whole-list selection."""
        gone = self._ids_in(deselected)
        if gone is None or len(self._excluded) + len(gone) > MAX_EXCLUDED:
            self.leave()
            return
        self._excluded |= gone
        self._excluded -= self._ids_in(selected) or set()
        total = self._model.rowCount()
        if row_spans(self._view.selectionModel().selection()) == [(0, total - 1)]:
            self._excluded.clear()  # Ctrl+A again

    def _ids_in(self, selection: QItemSelection) -> set[str] | None:
        """The ids at the rows of ``selection``; None if one of them is not read."""
        ids: set[str] = set()
        for first, last in row_spans(selection):
            for top, bottom in self._model.loaded_spans(first, last):
                ids.update(self._model.key(self._model.row_at(r)) for r in range(top, bottom + 1))
            if len(ids) > MAX_EXCLUDED:
                return None
        read = sum(last - first + 1 for first, last in row_spans(selection))
        return ids if len(ids) == read else None

    def on_reset(self) -> None:
        self.leave()

    def on_restored(self) -> None:
        """After a refresh the keeper put back the rows it knew: the whole list again."""
        if self.active:
            if self._model.rowCount() == 0:
                self.leave()
                self.changed.emit()
            else:
                self._apply()

    def on_rows_arrived(self, *_args: object) -> None:
        if self.active and self._excluded and not self._keeper.busy:
            self._apply()  # a row left out may have been read just now

    def _apply(self) -> None:
        """Highlight every row but those left out (the ones read: the others show no row)."""
        total, model = self._model.rowCount(), self._model
        out = sorted(r for r in map(model.row_of, self._excluded) if r >= 0)
        wanted_spans, start = [], 0
        for first, last in spans_of(out):
            if first > start:
                wanted_spans.append((start, first - 1))
            start = last + 1
        if start < total:
            wanted_spans.append((start, total - 1))
        selection_model = self._view.selectionModel()
        if row_spans(selection_model.selection()) == wanted_spans:
            return
        wanted, columns = QItemSelection(), model.columnCount() - 1
        for first, last in wanted_spans:
            wanted.select(model.index(first, 0), model.index(last, columns))
        self._applying = True
        try:
            selection_model.select(wanted, Flag.ClearAndSelect | Flag.Rows)
        finally:
            self._applying = False
        self.changed.emit()


def narrow_to_read(view: QTableView, model: SparseTableModel) -> bool:
    """Narrow a wide selection that is not the whole list (a Shift range far down) to the
    rows read so far, so that it holds exactly the memories an action would touch (and
    100,000 placeholders are never walked on the UI thread). True if it narrowed it."""
    selection_model = view.selectionModel()
    current = view.currentIndex().row()
    wanted, narrowed = QItemSelection(), False
    last_column = model.columnCount() - 1
    selection = selection_model.selection()
    for span in (selection.at(i) for i in range(selection.size())):
        spans = model.loaded_spans(span.top(), span.bottom())
        loaded = sum(last - first + 1 for first, last in spans)
        if span.top() <= current <= span.bottom() and model.row_at(current) is None:
            spans.append((current, current))  # its page is on the way (End, a click)
            loaded += 1
        narrowed = narrowed or loaded < span.bottom() - span.top() + 1
        for first, last in spans:
            wanted.select(model.index(first, 0), model.index(last, last_column))
    if narrowed:
        selection_model.select(wanted, Flag.ClearAndSelect)
    return narrowed

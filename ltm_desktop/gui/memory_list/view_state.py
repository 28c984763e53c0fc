"""Keep a table's selection, current row and scroll position attached to row keys across reloads."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from PySide6.QtCore import (
    QEvent,
    QItemSelection,
    QItemSelectionModel,
    QModelIndex,
    QObject,
    QTimer,
    Signal,
)
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView

from ltm_desktop.gui.models.base import RowRole, RowTableModel
from ltm_desktop.gui.models.sparse import SparseTableModel

Flag = QItemSelectionModel.SelectionFlag


def selected_versions(view: QTableView) -> dict[str, float]:
    """The selected memories, in row order, with the ``updated_at`` each row shows: the
    version the person saw, which a write names so as not to overwrite a newer one."""
    versions: dict[str, float] = {}
    for r in sorted(i.row() for i in view.selectionModel().selectedRows()):
        row = view.model().index(r, 0).data(RowRole)
        memory = getattr(row, "memory", row)  # search, stale and trash rows wrap a MemoryRow
        updated_at = getattr(memory, "updated_at", None)
        if isinstance(updated_at, int | float) and not isinstance(updated_at, bool):
            versions[memory.id] = float(updated_at)
    return versions


def configure_table(view: QTableView, *, multi: bool = True, stretch: int | None = None) -> None:
    """The look and behaviour every list in the app shares. ``stretch``: the column that
    takes the room left (a title), so the list never scrolls sideways; else the last one."""
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(
        QAbstractItemView.SelectionMode.ExtendedSelection
        if multi
        else QAbstractItemView.SelectionMode.SingleSelection
    )
    view.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
    view.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
    view.setAlternatingRowColors(True)
    view.setShowGrid(False)
    view.setWordWrap(False)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.verticalHeader().hide()
    header = view.verticalHeader()
    header.setDefaultSectionSize(view.fontMetrics().height() + 10)
    header.setSectionResizeMode(header.ResizeMode.Fixed)
    view.horizontalHeader().setHighlightSections(False)
    # A header asks its selection model, each time it paints, whether each column is
    # wholly selected, and Qt answers by walking every row (each a call into Python):
    # Select all over 100,000 memories froze the window for 2 s. Rows are selected here,
    # never columns, so the header gets a selection model of its own, which stays empty.
    # (QTableView.setModel gives it the view's again: set the model before this.)
    header_selection = QItemSelectionModel(view.model(), view.horizontalHeader())
    view.horizontalHeader().setSelectionModel(header_selection)
    view.horizontalHeader().setStretchLastSection(stretch is None)
    if stretch is not None:
        view.horizontalHeader().setSectionResizeMode(stretch, QHeaderView.ResizeMode.Stretch)


class ColumnFitter(QObject):
    """Keeps some columns as wide as their text (plus a little room) as rows come and go.

    Qt's own ResizeToContents fits a column when the header is laid out, not when
    rows arrive later from a worker: the Stale tab's idle days were cut to "9…" at
    the header's width. A child of the view, so its connections end with it. A model's
    refresh (``refresh_started`` .. ``refresh_finished``) is fitted once, at its end,
    however many rows it inserted or changed on the way, and not at all if it changed none.
    Only the rows on screen and ``FIT_ROWS`` around them are measured, and a hidden view
    is fitted when it is shown (Qt measures every row of a hidden one): measuring 1,000
    rows a reload took 100 ms of the UI thread on a list of 10,000 stale memories.
    """

    ROOM = 12  # pixels beyond the widest text: Qt's fit leaves 3 on each side
    FIT_ROWS = 150  # rows beyond those on screen whose text the width takes in

    def __init__(self, view: QTableView, sections: Iterable[int]) -> None:
        super().__init__(view)
        self._view = view
        self._sections = list(sections)
        header = view.horizontalHeader()
        header.setResizeContentsPrecision(self.FIT_ROWS)
        for section in self._sections:
            header.setSectionResizeMode(section, QHeaderView.ResizeMode.Interactive)
        self._refreshing = self._stale = False
        view.installEventFilter(self)
        model = view.model()
        for signal in (model.rowsInserted, model.modelReset, model.dataChanged):
            signal.connect(self.fit)
        if isinstance(model, RowTableModel):
            model.refresh_started.connect(self.on_refresh_started)
            model.refresh_finished.connect(self.on_refresh_finished)
        self.fit()

    def on_refresh_started(self) -> None:
        self._refreshing = True

    def on_refresh_finished(self) -> None:
        self._refreshing = False
        if self._stale:
            self.fit()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Show and self._stale:
            QTimer.singleShot(0, self, self.fit)  # once the view has its shown size
        return False

    def fit(self, *_: Any) -> None:
        if self._refreshing or not self._view.isVisible():
            self._stale = True
            return
        self._stale = False
        header = self._view.horizontalHeader()
        for section in self._sections:
            text = max(self._view.sizeHintForColumn(section), header.sectionSizeHint(section))
            header.resizeSection(section, text + self.ROOM)


class ViewKeeper(QObject):
    """Notes the view's state by row key before the model changes rows and restores it after.

    Signals:
        restored(): the selection, current row and scroll are back after a refresh.
    """

    restored = Signal()

    def __init__(self, view: QTableView, model: RowTableModel) -> None:
        super().__init__(view)
        self._view = view
        self._model = model
        self.busy = False
        self._selected: list[Any] = []
        self._current: Any = None
        self._current_column = 0
        self._top: Any = None
        self._top_offset = 0
        model.refresh_started.connect(self.on_rows_changing)
        model.refresh_finished.connect(self.on_rows_changed)
        model.modelAboutToBeReset.connect(self.on_rows_changing)
        model.modelReset.connect(self.on_reset)
        if isinstance(model, SparseTableModel):
            model.watch_view(view)  # a refresh re-reads what this view shows and holds

    def _key_at(self, row: int) -> Any:
        item = self._model.row_at(row)
        return None if item is None else self._model.key(item)

    def on_rows_changing(self) -> None:
        self.busy = True
        view, selection = self._view, self._view.selectionModel().selection()
        key_at = self._key_at
        self._selected = [  # by the selection's row spans: no QModelIndex per selected row,
            key  # and in a paged list only the rows read (Select all over 100,000 is one span)
            for top, bottom in self._read_spans(selection)
            for key in map(key_at, range(top, bottom + 1))
            if key is not None
        ]
        current = view.currentIndex()
        self._current = self._key_at(current.row()) if current.isValid() else None
        self._current_column = max(0, current.column())
        top = view.rowAt(0)
        self._top = self._key_at(top) if top >= 0 else None
        self._top_offset = view.rowViewportPosition(top) if top >= 0 else 0

    def _read_spans(self, selection: QItemSelection) -> list[tuple[int, int]]:
        spans = [(r.top(), r.bottom()) for r in (selection.at(i) for i in range(selection.size()))]
        if not isinstance(self._model, SparseTableModel):
            return spans
        return [read for top, bottom in spans for read in self._model.loaded_spans(top, bottom)]

    def on_rows_changed(self, *, reset: bool = False) -> None:
        try:
            self._restore(reset)
        finally:
            self.busy = False
        self.restored.emit()

    def on_reset(self) -> None:
        self.on_rows_changed(reset=True)

    def _restore(self, reset: bool = False) -> None:
        model, view = self._model, self._view
        selection_model = view.selectionModel()
        rows = sorted({r for r in map(model.row_of, self._selected) if r >= 0})
        if row_spans(selection_model.selection()) != spans_of(rows):
            wanted = QItemSelection()
            last = model.columnCount() - 1
            for first, final in spans_of(rows):
                wanted.select(model.index(first, 0), model.index(final, last))
            selection_model.select(wanted, Flag.ClearAndSelect | Flag.Rows)
        current_row = model.row_of(self._current) if self._current is not None else -1
        if current_row >= 0 and view.currentIndex().row() != current_row:
            selection_model.setCurrentIndex(
                model.index(current_row, self._current_column), Flag.NoUpdate
            )
        elif current_row < 0 and view.currentIndex().isValid():
            # The current row is gone (filtered out, restored, removed). Qt would quietly make
            # a neighbour current while our "busy" flag hides it; a later click on that row
            # would then change nothing. No current row is the honest state.
            selection_model.setCurrentIndex(QModelIndex(), Flag.NoUpdate)
        top_row = model.row_of(self._top) if self._top is not None else -1
        if top_row >= 0:
            view.doItemsLayout()
            bar = view.verticalScrollBar()
            bar.setValue(bar.value() + view.rowViewportPosition(top_row) - self._top_offset)
        elif reset:  # other rows (another scope, filter or sort): start from the top
            view.scrollToTop()


def spans_of(rows: list[int]) -> list[tuple[int, int]]:
    """Sorted row numbers as (first, last) runs of consecutive rows."""
    spans: list[tuple[int, int]] = []
    for row in rows:
        if spans and spans[-1][1] + 1 == row:
            spans[-1] = (spans[-1][0], row)
        elif not spans or spans[-1][1] < row:
            spans.append((row, row))
    return spans


def row_spans(selection: QItemSelection) -> list[tuple[int, int]]:
    """The rows a selection holds, as (first, last) runs: what it selects, however split."""
    found = sorted(
        (r.top(), r.bottom()) for r in (selection.at(i) for i in range(selection.size()))
    )
    spans: list[tuple[int, int]] = []
    for first, last in found:
        if spans and first <= spans[-1][1] + 1:
            spans[-1] = (spans[-1][0], max(spans[-1][1], last))
        else:
            spans.append((first, last))
    return spans


MIN_COLUMN_WIDTH = 24
MAX_COLUMN_WIDTH = 4_000


def column_widths(view: QTableView) -> list[int]:
    """The widths of a table's columns, for the settings file."""
    header = view.horizontalHeader()
    return [header.sectionSize(i) for i in range(header.count())]


def restore_column_widths(view: QTableView, saved: object) -> None:
    """Give back the widths the person chose; columns that size themselves keep doing so.

    ``saved`` comes from a settings file a person may have edited: anything that
    is not a list of sensible widths is ignored, never an error.
    """
    if isinstance(saved, str):  # QSettings' INI format reads a one-item list back as a string
        saved = [saved]
    if not isinstance(saved, list):
        return
    header = view.horizontalHeader()
    last = header.count() - 1
    for column, value in enumerate(saved[: header.count()]):
        try:
            width = int(value)
        except (TypeError, ValueError):
            continue
        interactive = header.sectionResizeMode(column) == header.ResizeMode.Interactive
        stretched_last = column == last and header.stretchLastSection()
        if interactive and not stretched_last and MIN_COLUMN_WIDTH <= width <= MAX_COLUMN_WIDTH:
            header.resizeSection(column, width)

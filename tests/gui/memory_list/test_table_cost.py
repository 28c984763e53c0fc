"""What a long list costs the UI thread when rows are selected or arrive: Qt must not walk
every row (each a call into Python) to paint a header or to fit a column's width."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtWidgets import QApplication, QTableView
from pytestqt.qtbot import QtBot

from ltm_desktop.gui.memory_list.view_state import ColumnFitter, configure_table
from ltm_desktop.gui.models.base import RowTableModel

ROWS = 20_000
COL_TEXT, COL_COUNT = range(2)


@dataclass(frozen=True)
class Row:
    id: str
    count: int


class CountingModel(RowTableModel):
    """A plain list model that counts how often Qt asks it for anything."""

    COLUMNS = ("Text", "Count")

    def __init__(self) -> None:
        super().__init__()
        self.asked = 0

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        self.asked += 1
        return super().rowCount(parent)

    def cell(self, row: Row, column: int, role: int) -> Any:
        self.asked += 1
        if role == Qt.ItemDataRole.DisplayRole:
            return row.id if column == COL_TEXT else str(row.count)
        return None


def shown_table(qtbot: QtBot, model: CountingModel) -> QTableView:
    view = QTableView()
    qtbot.addWidget(view)
    view.setModel(model)
    configure_table(view, stretch=COL_TEXT)
    view.resize(600, 400)
    view.show()
    qtbot.waitExposed(view)
    return view


def test_select_all_over_many_rows_does_not_walk_them(qtbot: QtBot) -> None:
    """The header painted after Select all asked whether each column was wholly selected,
    and Qt walked all 20,000 rows per column to answer (2 s at 100,000 memories)."""
    model = CountingModel()
    model.set_rows([Row(f"memory {i}", i) for i in range(ROWS)])
    view = shown_table(qtbot, model)
    model.asked = 0
    view.selectAll()
    QApplication.processEvents()  # the paints the selection asked for
    view.horizontalHeader().repaint()
    assert model.asked < 2_000  # the rows on screen, not 20,000 x 2 columns
    selection = view.selectionModel()
    assert selection.isRowSelected(0)
    assert selection.isRowSelected(ROWS - 1)


def test_a_fitted_column_measures_the_rows_near_the_screen_and_waits_while_hidden(
    qtbot: QtBot,
) -> None:
    model = CountingModel()
    view = shown_table(qtbot, model)
    fitter = ColumnFitter(view, (COL_COUNT,))
    model.asked = 0
    model.set_rows([Row(f"memory {i}", 10 ** (i % 7)) for i in range(ROWS)])
    assert model.asked < 800  # not the 1,000 rows Qt measures by default, nor all of them
    narrow = view.columnWidth(COL_COUNT)
    assert narrow > view.fontMetrics().horizontalAdvance("1000000")  # the widest near the top

    view.hide()
    model.asked = 0
    model.set_rows([Row(f"memory {i}", 10**12) for i in range(ROWS)])
    assert model.asked < 100  # a hidden view measures nothing (Qt would measure every row)
    view.show()
    qtbot.waitUntil(lambda: view.columnWidth(COL_COUNT) > narrow)  # fitted once shown
    assert view.columnWidth(COL_COUNT) >= view.fontMetrics().horizontalAdvance("1" * 13)
    assert fitter.parent() is view

"""The central list: a scope's memories (paged) or, while a query is typed, the ranked hits."""

from __future__ import annotations

import html

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QStackedWidget,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ltm_desktop.core.errors import InvalidInput
from ltm_desktop.core.records import MATCHED_MEANING, SearchFilter
from ltm_desktop.core.rules import normalize_tag
from ltm_desktop.gui import ops, theme
from ltm_desktop.gui.bridge import ChangeSet
from ltm_desktop.gui.context import AppContext
from ltm_desktop.gui.elided_label import ElidedLabel
from ltm_desktop.gui.formatting import count_label
from ltm_desktop.gui.memory_list.delegates import HtmlDelegate
from ltm_desktop.gui.memory_list.empty_state import EmptyState
from ltm_desktop.gui.memory_list.filter_bar import FilterBar
from ltm_desktop.gui.memory_list.new_since import NewSince
from ltm_desktop.gui.memory_list.row_view import RowTableView
from ltm_desktop.gui.memory_list.view_state import ViewKeeper, configure_table, selected_versions
from ltm_desktop.gui.memory_list.whole_list import WholeListSelection, narrow_to_read
from ltm_desktop.gui.models import memory_model as cols
from ltm_desktop.gui.models.base import MemoryIdRole, RowRole, RowTableModel
from ltm_desktop.gui.models.memory_model import MemoryTableModel
from ltm_desktop.gui.models.search_model import (
    COL_MATCH,
    COL_SCOPE,
    COL_TAGS,
    COL_TITLE,
    SEARCH_LIMIT,
    HitRow,
    SearchResultsModel,
)
from ltm_desktop.gui.panels.base import ScopedPanel
from ltm_desktop.gui.window.title_room import TitleRoom

PAGE_EMPTY, PAGE_LIST, PAGE_SEARCH = range(3)
LIST_OPTIONAL = (cols.COL_USES, cols.COL_SOURCE, cols.COL_UPDATED, cols.COL_TAGS, cols.COL_CATEGORY)
TITLE_MIN = 180  # the title (or the match) column's width before other columns step aside


def describe_hits(rows: list[HitRow]) -> str:
    """The count under the results: how many match the words and how many only their
    meaning (a hundred "matches" of which seventy share no word would mislead)."""
    meaning = sum(1 for row in rows if row.matched == MATCHED_MEANING)
    words = len(rows) - meaning
    parts = [count_label(words, "match", "matches")] if words else []
    if meaning:
        parts.append(f"{meaning:,} similar in meaning")
    text = " and ".join(parts)
    if len(rows) >= SEARCH_LIMIT:
        return f"The best {len(rows)} are shown: {text} (add a word to narrow the search)"
    return f"{text}, best first"


class MemoryTable(ScopedPanel):
    """Filter bar + table of memories; reports the selection by memory id.

    Signals:
        current_changed(str): the memory under the cursor ("" for none).
        selection_changed(list): ids of the selected memories (those read so far; after
            Select all over rows not read, ``selection_target`` is the whole list).
        selected_count_changed(int): how many memories the selection holds.
        activated(str): a memory was double-clicked or Enter was pressed on it.
        connect_requested(): the empty state's "Connect an agent" button.
        new_requested(): the empty state's "New memory" button.
    """

    current_changed = Signal(str)
    selection_changed = Signal(list)
    selected_count_changed = Signal(int)
    activated = Signal(str)
    connect_requested = Signal()
    new_requested = Signal()

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self._ids: list[str] = []
        self._current = ""
        self._pending_select = ""
        self._focus_on_results = False  # Down/Enter in the search box before the hits came
        self._focus_on_rows = False  # the window opened before the first page came
        self._count = 0
        self.has_projects = True
        self.model = MemoryTableModel(ctx.service, ctx.runner, self)
        self.search_model = SearchResultsModel(ctx.service, ctx.runner, self)
        self.bar = FilterBar(self)
        bar = self.bar
        self.search_box, self.category, self.tag = bar.search_box, bar.category, bar.tag
        self.show_removed, self.show_expired = bar.show_removed, bar.show_expired
        self.count_label = ElidedLabel(self)  # a long count never widens the window
        self.new_since = NewSince(ctx, self)
        self.list_view = self._table(self.model, watch=False)
        self.search_view = self._table(self.search_model)
        html = HtmlDelegate(self.search_view)  # only where there is HTML: it paints in Python
        for column in (COL_TITLE, COL_MATCH):
            self.search_view.setItemDelegateForColumn(column, html)
        self.list_keeper = ViewKeeper(self.list_view, self.model)
        self.whole = WholeListSelection(self.list_view, self.model, self.list_keeper)
        self.whole.changed.connect(self.on_selection_changed)
        self.search_keeper = ViewKeeper(self.search_view, self.search_model)
        TitleRoom(self.list_view, cols.COL_TITLE, LIST_OPTIONAL, TITLE_MIN)
        TitleRoom(self.search_view, COL_MATCH, (COL_SCOPE, COL_TAGS), TITLE_MIN)
        self.empty = EmptyState(self)
        self.stack = QStackedWidget(self)
        for page in (self.empty, self.list_view, self.search_view):
            self.stack.addWidget(page)
        self._layout()
        self._connect()

    def _table(self, model: RowTableModel, *, watch: bool = True) -> QTableView:
        """A table of ``model``; ``watch``: its selection changes reach on_selection_changed
        directly (the list's go through ``WholeListSelection`` first)."""
        view = RowTableView(self)
        view.setModel(model)
        configure_table(view)
        if watch:
            view.selectionModel().selectionChanged.connect(self.on_selection_changed)
        view.selectionModel().currentRowChanged.connect(self.on_selection_changed)
        view.activated.connect(self.on_activated)
        return view

    def _layout(self) -> None:
        self.bar.add_filter(self.new_since.toggle)
        bottom = QHBoxLayout()
        bottom.addWidget(self.count_label, 1)
        bottom.addWidget(self.new_since.mark_seen)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.bar)
        layout.addWidget(self.stack, 1)
        layout.addLayout(bottom)
        header = self.list_view.horizontalHeader()
        header.setSortIndicator(self.model.sort_column(), Qt.SortOrder.DescendingOrder)
        self.list_view.setSortingEnabled(True)
        header.sortIndicatorChanged.connect(self.on_sort_indicator_changed)
        # The title (or the match) takes the room that is left, so the table fits its pane.
        for view, widths, stretch in (
            (self.list_view, (0, 86, 96, 116, 86, 50, 90), 0),
            (self.search_view, (28, 170, 0, 76, 72, 80, 60), 2),
        ):
            view.horizontalHeader().setStretchLastSection(False)
            for column, width in enumerate(widths):
                if column == stretch:
                    view.horizontalHeader().setSectionResizeMode(
                        column, QHeaderView.ResizeMode.Stretch
                    )
                else:
                    view.setColumnWidth(column, width)

    def _connect(self) -> None:
        self.search_box.query_changed.connect(self.on_query_changed)
        self.search_box.to_results.connect(self.focus_results)
        self.category.currentIndexChanged.connect(self.on_filters_changed)
        self.tag.editingFinished.connect(self.on_filters_changed)
        self.tag.textChanged.connect(self.on_tag_text)
        self.show_removed.toggled.connect(self.on_filters_changed)
        self.show_expired.toggled.connect(self.on_filters_changed)
        self.new_since.changed.connect(self.on_filters_changed)
        self.model.loaded.connect(self.on_list_loaded)
        self.model.total_changed.connect(self.on_list_loaded)
        self.model.load_failed.connect(lambda exc: self.ctx.errors.report(exc, "load the memories"))
        self.model.dataChanged.connect(self.on_rows_arrived)
        self.search_model.searched.connect(self.on_search_results)
        self.search_model.search_failed.connect(lambda exc: self.ctx.errors.report(exc, "search"))
        self.list_keeper.restored.connect(self.on_rows_restored)
        self.search_keeper.restored.connect(self.on_rows_restored)
        self.empty.connect_requested.connect(self.connect_requested)
        self.empty.new_requested.connect(self.new_requested)
        self.empty.clear_requested.connect(self.bar.clear)  # each filter refilters

    # -- scope and data ---------------------------------------------------

    def reload(self, scope_changed: bool) -> None:
        if scope_changed:
            self._pending_select = ""
            self.model.update_query(project_id=self.project_id)
            self.search_model.search(self.project_id, self.search_box.text())
        else:
            self.model.refresh()
            self.search_model.rerun()

    def affected_by(self, changes: ChangeSet) -> bool:
        searching = bool(self.search_box.text().strip())
        if searching and changes.touches_precis(self.project_id):  # hits include global ones
            return True
        return changes.touches(self.project_id) or (changes.unaudited and changes.external)

    def on_tag_text(self, text: str) -> None:
        """Clearing the tag box filters at once; typed text waits for Enter or focus-out."""
        if not text:
            self.on_filters_changed()

    def on_filters_changed(self, *_args: object) -> None:
        tag = self.tag.text().strip()
        try:
            tag_value = normalize_tag(tag) if tag else None
            self.tag.setToolTip("")
            self.tag.setStyleSheet("")
        except InvalidInput as exc:  # said where the eye is: under the list, the box in red
            self.tag.setToolTip(str(exc))
            self.tag.setStyleSheet(f"color: {theme.css(theme.error_color())};")
            self.count_label.setText(f"Not filtered by tag: {exc}")
            return
        self.model.update_query(
            category=self.category.currentData(),
            tag=tag_value,
            include_disabled=self.show_removed.isChecked(),
            include_expired=self.show_expired.isChecked(),
            new_since=self.new_since.since(),
        )
        q = self.model.query
        self.search_model.set_filter(
            SearchFilter(
                None if q.category is None else str(q.category),
                q.tag,
                q.include_disabled,
                q.include_expired,
                q.new_since,
            )
        )
        self._show_page()  # the count again, also when the query did not change

    def on_query_changed(self, text: str) -> None:
        self.search_model.search(self.project_id, text)
        if not text.strip():
            self._show_page()

    def on_search_results(self, text: str, count: int) -> None:
        self._show_page()
        if self._focus_on_results:
            self._focus_on_results = False
            self.focus_results()

    def take_focus(self) -> None:
        """Give the rows the keyboard focus, now or as soon as they are shown."""
        self._focus_on_rows = self.stack.currentIndex() == PAGE_EMPTY
        if not self._focus_on_rows:
            self.active_view().setFocus(Qt.FocusReason.OtherFocusReason)

    def focus_results(self) -> None:
        """The list (or the hits) takes the focus, on its first row if none is current."""
        if self.search_box.text().strip() and self.search_model.pending:
            self._focus_on_results = True  # when the hits arrive
            return
        if self.stack.currentIndex() == PAGE_EMPTY:
            return
        view = self.active_view()
        if not view.currentIndex().isValid() and view.model().rowCount() > 0:
            flags = view.selectionModel().SelectionFlag
            view.selectionModel().setCurrentIndex(
                view.model().index(0, 0), flags.ClearAndSelect | flags.Rows
            )
        view.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def on_list_loaded(self, *_args: object) -> None:
        self._show_page()

    def _filtered(self) -> bool:
        q = self.model.query
        return bool(q.category or q.tag or q.include_disabled or q.include_expired or q.new_since)

    def _show_page(self) -> None:
        text = self.search_box.text().strip()
        if text:
            count = self.search_model.rowCount()
            if count:
                self.stack.setCurrentIndex(PAGE_SEARCH)
                self.count_label.setText(describe_hits(self.search_model.rows()))
            elif not self.search_model.pending:
                self.empty.show_text(
                    "No matches", f"No memory matches “{html.escape(text)}” in this scope."
                )
                self.stack.setCurrentIndex(PAGE_EMPTY)
                self.count_label.setText("")
            if self._focus_on_rows and self.stack.currentIndex() == PAGE_SEARCH:
                self.take_focus()
        else:
            total = self.model.total or 0
            if total or self.model.is_loading():
                self.stack.setCurrentIndex(PAGE_LIST)
            elif not self.has_projects and not self._filtered():
                self.empty.show_welcome()
                self.stack.setCurrentIndex(PAGE_EMPTY)
            elif self._filtered():
                self.empty.show_text(
                    "No memory matches these filters",
                    "The scope's memories are hidden by the category, tag, New or "
                    "Removed / Expired filters above.",
                    offer_clear=True,
                )
                self.stack.setCurrentIndex(PAGE_EMPTY)
            else:
                self.empty.show_text(
                    f"No memories in {html.escape(self.ctx.scope.name)} yet",
                    "Agents add memories as they work; you can also write one yourself.",
                    offer_new=True,
                )
                self.stack.setCurrentIndex(PAGE_EMPTY)
            self.count_label.setText(count_label(total, "memory", "memories"))
            if self._focus_on_rows and self.stack.currentIndex() == PAGE_LIST:
                self.take_focus()
        self.on_selection_changed()

    def on_sort_indicator_changed(self, column: int, order: Qt.SortOrder) -> None:
        """Columns the store cannot sort by (tags) put the arrow back where the order is."""
        if column != self.model.sort_column():
            header = self.list_view.horizontalHeader()
            blocked = header.blockSignals(True)
            descending = self.model.query.descending
            header.setSortIndicator(
                self.model.sort_column(),
                Qt.SortOrder.DescendingOrder if descending else Qt.SortOrder.AscendingOrder,
            )
            header.blockSignals(blocked)

    # -- selection --------------------------------------------------------

    def active_view(self) -> QTableView:
        return self.search_view if self.stack.currentIndex() == PAGE_SEARCH else self.list_view

    def on_rows_restored(self) -> None:
        if self._pending_select:
            self.select_memory(self._pending_select, when_loaded=False)
        self.on_selection_changed()

    def on_selection_changed(self, *_args: object) -> None:
        if self.list_keeper.busy or self.search_keeper.busy:
            return
        view = self.active_view() if self.stack.currentIndex() != PAGE_EMPTY else None
        ids: list[str] = []
        current = ""
        whole = view is self.list_view and self.whole.active
        if view is self.list_view and not whole and narrow_to_read(self.list_view, self.model):
            return  # the narrowed selection comes back here
        if whole:  # no walk over the rows: the selection is a query
            index = self.list_view.currentIndex()
            if index.isValid() and self.list_view.selectionModel().isRowSelected(index.row()):
                current = index.data(MemoryIdRole) or ""
        elif view is not None:
            index = view.currentIndex()
            if index.isValid() and index.data(RowRole) is None:
                return  # its page is on the way: on_rows_arrived looks again, not the editor
            rows = sorted(i.row() for i in view.selectionModel().selectedRows())
            found = (view.model().index(r, 0).data(MemoryIdRole) for r in rows)
            ids = [i for i in found if i]  # a row whose page is not in names no memory yet
            if index.isValid() and view.selectionModel().isRowSelected(index.row(), QModelIndex()):
                current = index.data(MemoryIdRole) or ""
            elif len(ids) == 1:
                current = ids[0]
        if ids != self._ids:
            self._ids = ids
            self.selection_changed.emit(ids)
        count = self.whole.count() if whole else len(ids)
        if count != self._count:
            self._count = count
            self.selected_count_changed.emit(count)
        if current != self._current:
            self._current = current
            if current:
                self._pending_select = ""  # the person chose: drop any older "select later"
            self.current_changed.emit(current)

    def on_rows_arrived(self, *_args: object) -> None:
        """A page came in: selected rows that were placeholders now name their memories."""
        if self.active_view() is self.list_view and self.list_view.selectionModel().hasSelection():
            self.on_selection_changed()

    def on_activated(self, index: QModelIndex) -> None:
        memory_id = index.data(MemoryIdRole)
        if memory_id:
            self.activated.emit(memory_id)

    def selected_ids(self) -> list[str]:
        return list(self._ids)

    def selected_count(self) -> int:
        """How many memories the selection holds (all of the list's after Select all)."""
        return self._count

    def selection_target(self) -> ops.Target:
        """What a bulk action acts on: after Select all (less any Ctrl+clicked rows) every
        memory of the list's filters, read or not, as a query the core resolves; else the
        selected memories with the version of each the list shows."""
        if self.active_view() is self.list_view and self.whole.active:
            return self.whole.selection(self.project_id, self.model.query)
        return self.selected_versions()

    def select_all(self) -> None:
        """Edit › Select all: every memory the list (or the hits) shows."""
        if self.stack.currentIndex() != PAGE_EMPTY:
            view = self.active_view()
            view.selectAll()
            view.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def selected_versions(self) -> dict[str, float]:
        """The selected memories with the version of each that the list shows."""
        shown = selected_versions(self.active_view())
        return {i: shown[i] for i in self._ids if i in shown}

    def current_id(self) -> str:
        return self._current

    def select_memory(self, memory_id: str, *, when_loaded: bool = True) -> bool:
        """Select the memory if the visible list has it; True if it did.

        Args:
            when_loaded: if the row is not there yet (a memory just created), select it
                as soon as a refresh brings it in.
        """
        view = self.active_view()
        model = view.model()
        assert isinstance(model, RowTableModel)
        row = model.row_of(memory_id)
        if row < 0:
            self._pending_select = memory_id if when_loaded else ""
            return False
        self._pending_select = ""
        index = model.index(row, 0)
        flags = view.selectionModel().SelectionFlag
        view.selectionModel().setCurrentIndex(index, flags.ClearAndSelect | flags.Rows)
        view.scrollTo(index)
        return True

    def forget_current(self) -> None:
        """The editor moved on (a new memory): nothing is highlighted, so that a click on
        the row that was opens it again (it used to stay current and the click did nothing)."""
        self._current, self._ids = "", []
        selection = self.active_view().selectionModel()
        blocked = selection.blockSignals(True)
        selection.clear()
        selection.blockSignals(blocked)
        self.active_view().viewport().update()

    def focus_search(self) -> None:
        self.search_box.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search_box.selectAll()

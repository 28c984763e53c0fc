"""The Trash: what was removed, superseded or expired in this scope, and a way back.

The list is read in pages where the view is, so a wide selection (Ctrl+A on thousands,
a Shift range far down) covers rows not read yet. Restore and Erase act on all of it:
the selection is first resolved on a worker, by the same query the list shows
(``read_rows``), and checked against what the list shows; only then does anything
happen, named with its real count. A Trash that changed meanwhile is said, not guessed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ltm_desktop.core.backend import MAX_PAGE
from ltm_desktop.core.records import ListQuery
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.actions import MemoryActions
from ltm_desktop.gui.context import AppContext
from ltm_desktop.gui.formatting import count_label
from ltm_desktop.gui.memory_list.row_view import RowTableView
from ltm_desktop.gui.memory_list.view_state import ViewKeeper, configure_table, row_spans
from ltm_desktop.gui.models.base import MemoryIdRole
from ltm_desktop.gui.models.trash_model import COL_TITLE, COL_WHEN, COL_WHY, TrashModel
from ltm_desktop.gui.panels.base import ScopedPanel
from ltm_desktop.gui.panels.erase_controls import EraseControls

Versions = dict[str, float]  # memory id -> the updated_at the person saw (or read)
Spans = list[tuple[int, int]]  # (first, last) rows, in order, not overlapping
CHANGED_MEANWHILE = (
    "The Trash changed while you were choosing (something was removed, restored or "
    "erased): nothing was done. Look again and select once more."
)


@dataclass(frozen=True)
class ReadRows:
    """The Trash as a worker read it: how many memories before and after, and the
    (id, version) at each selected row."""

    count_before: int
    count_after: int
    rows: dict[int, tuple[str, float]]


def trash_query(order_by: str = "disabled_at", descending: bool = True) -> ListQuery:
    return ListQuery(
        only_disabled=True, include_expired=True, order_by=order_by, descending=descending
    )


def read_rows(service: MemoryService, project_id: str, query: ListQuery, spans: Spans) -> ReadRows:
    """Worker side: the (id, version) at each row of ``spans`` in the list ``query`` gives,
    with the list's length before and after (a change between the reads shows)."""
    before = service.count_memories(project_id, query)
    rows: dict[int, tuple[str, float]] = {}
    for first, last in spans:
        offset = first
        while offset <= last:
            limit = min(MAX_PAGE, last - offset + 1)
            page = service.list_memories(project_id, replace(query, limit=limit, offset=offset))
            rows.update((offset + i, (m.id, m.updated_at)) for i, m in enumerate(page))
            if len(page) < limit:
                break
            offset += limit
    return ReadRows(before, service.count_memories(project_id, query), rows)


class TrashPanel(ScopedPanel):
    """Removed memories stay restorable until erased for good (``EraseControls``).

    Signals:
        current_changed(str): the memory under the cursor ("" for none).
    """

    current_changed = Signal(str)

    def __init__(
        self, ctx: AppContext, actions: MemoryActions, parent: QWidget | None = None
    ) -> None:
        super().__init__(ctx, parent)
        self.memory_actions = actions
        self.model = TrashModel(ctx.service, ctx.runner, self)
        self.view = RowTableView(self)
        self.view.setModel(self.model)
        configure_table(self.view, stretch=COL_TITLE)
        for column, width in ((1, 80), (COL_WHY, 160), (COL_WHEN, 90), (COL_WHEN + 1, 100)):
            self.view.setColumnWidth(column, width)
        self.view.horizontalHeader().setSortIndicator(COL_WHEN, Qt.SortOrder.DescendingOrder)
        self.view.setSortingEnabled(True)
        self.keeper = ViewKeeper(self.view, self.model)
        self.summary = QLabel(self)
        self.restore_button = QPushButton("Restore selected", self)
        self.restore_button.setEnabled(False)
        hint = QLabel(
            "Restore brings a memory back as it was; only Erase permanently deletes for good.",
            self,
        )
        self.erase = EraseControls(
            ctx, actions, self.resolve_selection, lambda: self.project_id, self
        )
        self.erase.busy_changed.connect(self.update_buttons)
        hint.setEnabled(False)
        hint.setWordWrap(True)
        bottom = QHBoxLayout()
        bottom.addWidget(self.summary)
        bottom.addStretch(1)
        bottom.addWidget(self.erase.empty_button)
        bottom.addWidget(self.erase.erase_button)
        bottom.addWidget(self.restore_button)
        layout = QVBoxLayout(self)
        layout.addWidget(hint)
        layout.addWidget(self.view, 1)
        layout.addLayout(bottom)
        self.restore_button.clicked.connect(self.restore_selected)
        self.view.selectionModel().selectionChanged.connect(self.on_selection_changed)
        self.view.selectionModel().currentRowChanged.connect(self.on_selection_changed)
        self.model.total_changed.connect(self.on_total)
        self.model.load_failed.connect(lambda exc: ctx.errors.report(exc, "load the Trash"))
        actions.writing.connect(self.on_writing)
        self._current = ""
        self._resolving = False  # a selection being read on a worker
        self._writing = False  # a restore (or any write of the window) on the way

    def reload(self, scope_changed: bool) -> None:
        if scope_changed:
            self.model.set_project(self.project_id)
        else:
            self.model.refresh()

    def on_total(self, total: int) -> None:
        self.summary.setText(count_label(total, "memory", "memories") + " in the Trash")
        self.update_buttons()  # nothing to empty: nothing to ask

    # -- the selection ----------------------------------------------------

    def selection_spans(self) -> Spans:
        """The selected rows as (first, last) runs, read off the selection's ranges (a
        Ctrl+A over 100,000 rows is one range: no row is walked)."""
        return row_spans(self.view.selectionModel().selection())

    def selected_count(self) -> int:
        return sum(last - first + 1 for first, last in self.selection_spans())

    def selected_ids(self) -> list[str]:
        """The selected memories the list has read so far (never a row not read yet)."""
        ids: list[str] = []
        for first, last in self.selection_spans():
            for top, bottom in self.model.loaded_spans(first, last):
                ids += [self.model.row_at(r).id for r in range(top, bottom + 1)]
        return ids

    def shown_versions(self) -> dict[int, tuple[str, float]]:
        """The selected rows the list has read: row -> (id, the version it shows)."""
        shown: dict[int, tuple[str, float]] = {}
        for first, last in self.selection_spans():
            for top, bottom in self.model.loaded_spans(first, last):
                for r in range(top, bottom + 1):
                    memory = self.model.row_at(r).memory
                    shown[r] = (memory.id, float(memory.updated_at))
        return shown

    def resolve_selection(self, then: Callable[[Versions], None]) -> None:
        """Call ``then`` with every selected memory and the version the person saw of it
        (for a row not read yet: as read now); read on a worker when the list has not
        read them all. When the Trash changed meanwhile, say so and do nothing."""
        spans, shown = self.selection_spans(), self.shown_versions()
        count = sum(last - first + 1 for first, last in spans)
        if not count:
            return
        if len(shown) == count:
            then(dict(shown[r] for r in sorted(shown)))
            return
        service, project_id, total = self.ctx.service, self.project_id, self.model.total
        query = trash_query(self.model.order_by, self.model.descending)

        def resolved(found: ReadRows) -> None:
            self._set_resolving(False)
            if project_id != self.project_id or not self._agrees(found, total, count, shown):
                self.memory_actions.message.emit(CHANGED_MEANWHILE)
                self.model.refresh()
                return
            rows = {**found.rows, **shown}  # what the person saw, where they saw it
            then(dict(rows[r] for r in sorted(rows)))

        def failed(exc: BaseException) -> None:
            self._set_resolving(False)
            self.ctx.errors.report(exc, "read the selected memories")

        self._set_resolving(True)
        self.memory_actions.message.emit(
            f"Reading the {count_label(count, 'selected memory', 'selected memories')}…"
        )
        self.ctx.runner.run(lambda: read_rows(service, project_id, query, spans), resolved, failed)

    @staticmethod
    def _agrees(
        found: ReadRows, total: int | None, count: int, shown: dict[int, tuple[str, float]]
    ) -> bool:
        """Whether the Trash read now is the one the person selected in."""
        if found.count_before != total or found.count_after != total or len(found.rows) != count:
            return False
        return all(found.rows.get(r, ("",))[0] == memory_id for r, (memory_id, _) in shown.items())

    def _set_resolving(self, on: bool) -> None:
        self._resolving = on
        self.update_buttons()

    # -- buttons ----------------------------------------------------------

    def busy(self) -> bool:
        """A restore, an erase or the reading of a selection is on the way."""
        return self._resolving or self._writing or self.erase.busy

    def on_writing(self, writing: bool) -> None:
        self._writing = writing
        self.update_buttons()

    def update_buttons(self, *_args: object) -> None:
        busy = self.busy()
        selected = self.selected_count() > 0
        self.restore_button.setEnabled(selected and not busy)
        self.erase.erase_button.setEnabled(selected and not busy)
        self.erase.empty_button.setEnabled(bool(self.model.total) and not busy)

    def on_selection_changed(self, *_args: object) -> None:
        if self.keeper.busy:
            return
        self.update_buttons()
        index: QModelIndex = self.view.currentIndex()
        selected = self.view.selectionModel().hasSelection()
        current = (index.data(MemoryIdRole) or "") if index.isValid() and selected else ""
        if current != self._current:
            self._current = current
            self.current_changed.emit(current)

    def restore_selected(self) -> None:
        if self.busy():
            self.memory_actions.message.emit("The Trash is still busy; try again in a moment.")
            return
        self.resolve_selection(self.memory_actions.restore)

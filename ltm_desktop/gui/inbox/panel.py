"""The Inbox: what the extractor found, waiting for a person's decision.

Every scope's proposals and unreviewed memories, newest first, each with where it came
from and the existing memory most like it. Keys: A approves, E edits then approves,
R (or Delete) rejects; the next item is selected after each; Ctrl+Z undoes.
"""

from __future__ import annotations

import html
from collections.abc import Callable

from PySide6.QtCore import QItemSelectionModel, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence, QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QTableView,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from ltm_desktop.gui.bridge import ChangeSet
from ltm_desktop.gui.context import AppContext
from ltm_desktop.gui.formatting import absolute_time, count_label
from ltm_desktop.gui.inbox.actions import InboxActions
from ltm_desktop.gui.inbox.edit import InboxEditDialog
from ltm_desktop.gui.memory_list.view_state import ColumnFitter, ViewKeeper, configure_table
from ltm_desktop.gui.models.inbox_model import (
    COL_FROM,
    COL_KIND,
    COL_PROJECT,
    COL_SIMILAR,
    COL_TITLE,
    COL_WHEN,
    InboxModel,
    InboxRow,
    load_inbox,
)

Flag = QItemSelectionModel.SelectionFlag


class InboxPanel(QWidget):
    """Signals:
    count_changed(int): how many items wait, in every scope (the tab's badge).
    """

    count_changed = Signal(int)

    def __init__(
        self,
        ctx: AppContext,
        actions: InboxActions,
        scopes: Callable[[], list[tuple[str, str]]] = list,
        parent: QWidget | None = None,
    ) -> None:
        """``scopes``: the scopes a proposal may be approved into (Edit then approve)."""
        super().__init__(parent)
        self.ctx = ctx
        self.inbox_actions = actions
        self.scopes = scopes
        self.model = InboxModel(ctx.service, self)
        self.view = QTableView(self)
        self.view.setModel(self.model)
        configure_table(self.view, stretch=COL_TITLE)
        self.view.setColumnWidth(COL_PROJECT, 110)
        self.view.setColumnWidth(COL_SIMILAR, 200)
        self.fitter = ColumnFitter(self.view, (COL_KIND, COL_FROM, COL_WHEN))
        self.keeper = ViewKeeper(self.view, self.model)
        self.details = QTextBrowser(self)
        self.details.setOpenLinks(False)
        self.summary = QLabel(self)
        self.select_all = QPushButton("Select all", self)
        self.flagged_only = QCheckBox("Flagged only", self)
        self.flagged_only.setToolTip(
            "Memories that read like instructions to the model; out of MEMORY.md until approved"
        )
        self._loaded: list[InboxRow] = []
        self.approve_button = QPushButton("&Approve (A)", self)
        self.edit_button = QPushButton("&Edit… (E)", self)
        self.edit_button.setToolTip("Edit, then approve")
        self.reject_button = QPushButton("&Reject (R)", self)
        self.edit_dialog: InboxEditDialog | None = None
        self.total = 0
        self._resume_row: int | None = None
        self._dirty = True
        self._build()
        self._wire(ctx)
        self.on_selection_changed()
        self.refresh_count()

    def _build(self) -> None:
        hint = QLabel(
            "What the extractor found in your agents' conversations. Proposals are held "
            "back until you approve them; unreviewed memories are in use already. "
            "Keys: A approve, E edit then approve, R reject; Ctrl+Z undoes.",
            self,
        )
        hint.setWordWrap(True)
        hint.setEnabled(False)
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.view)
        split.addWidget(self.details)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        buttons = QHBoxLayout()
        self.summary.setWordWrap(True)  # the tab fits a narrow window
        buttons.addWidget(self.summary, 1)
        buttons.addStretch(1)
        for button in (self.select_all, self.approve_button, self.edit_button, self.reject_button):
            buttons.addWidget(button)
        layout = QVBoxLayout(self)
        layout.addWidget(hint)
        layout.addWidget(self.flagged_only)  # its own row: the buttons' row fits 800 px
        layout.addWidget(split, 1)
        layout.addLayout(buttons)
        for key, slot in (
            ("A", self.approve_selected),
            ("E", self.edit_selected),
            ("R", self.reject_selected),
        ):
            action = QAction(self)
            action.setShortcut(QKeySequence(key))
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            action.triggered.connect(slot)
            self.addAction(action)

    def _wire(self, ctx: AppContext) -> None:
        self.select_all.clicked.connect(self.view.selectAll)
        self.flagged_only.toggled.connect(lambda _on: self._show_rows())
        self.approve_button.clicked.connect(self.approve_selected)
        self.edit_button.clicked.connect(self.edit_selected)
        self.reject_button.clicked.connect(self.reject_selected)
        selection = self.view.selectionModel()
        selection.selectionChanged.connect(self.on_selection_changed)
        selection.currentRowChanged.connect(self.on_selection_changed)
        ctx.bridge.changed.connect(self.on_changes)
        self.inbox_actions.finished.connect(self.reload_now)

    # -- loading ------------------------------------------------------------

    def on_changes(self, _changes: ChangeSet) -> None:
        """Any write may change what waits, or what an item looks most like."""
        self._dirty = True
        if self.isVisible():
            self.reload()
        else:
            self.refresh_count()

    def refresh_count(self) -> None:
        """Only the badge: one cheap count (the list waits until it is shown)."""
        service = self.ctx.service
        self.ctx.runner.run(
            service.inbox.count, self._on_count, lambda _exc: None, key=f"inbox-n-{id(self)}"
        )

    def reload_now(self) -> None:
        self._dirty = True
        self.reload()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._dirty:
            self.reload()

    def reload(self) -> None:
        self._dirty = False
        service = self.ctx.service
        self.ctx.runner.run(
            lambda: load_inbox(service),
            self._on_loaded,
            lambda exc: self.ctx.errors.report(exc, "load the Inbox"),
            key=f"inbox-{id(self)}",
        )

    def _on_count(self, total: int) -> None:
        if total != self.total:
            self.total = total
            self.count_changed.emit(total)

    def _on_loaded(self, result: tuple[list[InboxRow], int]) -> None:
        self._loaded, total = result
        rows = self._show_rows()
        waiting = count_label(total, "item")
        self.summary.setText(f"{waiting} waiting" if total else "Nothing waits for review.")
        self._on_count(total)
        if self._resume_row is not None and rows:
            self.select_row(min(self._resume_row, len(rows) - 1))
        self._resume_row = None
        self.on_selection_changed()

    def _show_rows(self) -> list[InboxRow]:
        """The loaded items, or only the flagged ones (the "Flagged only" filter)."""
        rows = [r for r in self._loaded if r.flagged or not self.flagged_only.isChecked()]
        self.model.set_rows(rows)
        return rows

    # -- selection ------------------------------------------------------------

    def select_row(self, row: int) -> None:
        index = self.model.index(row, 0)
        selection = self.view.selectionModel()
        selection.setCurrentIndex(index, Flag.ClearAndSelect | Flag.Rows)
        self.view.scrollTo(index)

    def selected_rows(self) -> list[InboxRow]:
        rows = sorted(i.row() for i in self.view.selectionModel().selectedRows())
        return [r for r in (self.model.row_at(i) for i in rows) if r is not None]

    def selected_items(self) -> dict[str, float]:
        """The selected items with the version each row shows (what a decision names)."""
        return {row.id: row.version for row in self.selected_rows()}

    def current_row(self) -> InboxRow | None:
        index = self.view.currentIndex()
        current = self.model.row_at(index.row()) if index.isValid() else None
        selected = self.selected_rows()
        if current is not None and current in selected:
            return current
        return selected[0] if selected else None

    def on_selection_changed(self, *_args: object) -> None:
        if self.keeper.busy:
            return
        selected = bool(self.selected_rows())
        for button in (self.approve_button, self.reject_button):
            button.setEnabled(selected)
        self.edit_button.setEnabled(len(self.selected_rows()) == 1)
        self.select_all.setEnabled(self.model.rowCount() > 0)
        row = self.current_row()
        self.details.setHtml(details_html(row) if row is not None else "")

    # -- decisions ------------------------------------------------------------

    def _remember_position(self) -> None:
        rows = [i.row() for i in self.view.selectionModel().selectedRows()]
        self._resume_row = min(rows) if rows else None

    def approve_selected(self) -> None:
        items = self.selected_items()
        if items:
            self._remember_position()
            self.inbox_actions.approve(items)

    def reject_selected(self) -> None:
        items = self.selected_items()
        if items:
            self._remember_position()
            self.inbox_actions.reject(items)

    def edit_selected(self) -> InboxEditDialog | None:
        """Open the item in a form; approving it there approves it with the edits."""
        row = self.current_row()
        if row is None:
            return None
        dialog = InboxEditDialog(row, self, self.scopes())
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.approved.connect(lambda changes, into, r=row: self._approve_edited(r, changes, into))
        dialog.destroyed.connect(lambda *_: setattr(self, "edit_dialog", None))
        self.edit_dialog = dialog
        dialog.open()
        return dialog

    def _approve_edited(self, row: InboxRow, changes: dict[str, object], into: str = "") -> None:
        position = self.model.row_of(row.id)
        self._resume_row = position if position >= 0 else None
        into = "" if into == row.project_id else into
        self.inbox_actions.approve({row.id: row.version}, changes, into or None)


def details_html(row: InboxRow) -> str:
    """The item, where it came from, and the memory most like it."""
    e = html.escape
    p = row.provenance
    kind = (
        "Proposal (not in use until approved)"
        if row.kind == "proposal"
        else "Unreviewed memory (in use)"
    )
    if row.is_merge:
        kind = f"Merge proposal: merges {row.merge_count} memories into this one"
    tags = f" · tags: {e(', '.join(row.tags))}" if row.tags else ""
    parts = [
        f"<h3>{e(row.title)}</h3>",
        f"<p style='white-space: pre-wrap'>{e(row.content)}</p>",
        f"<p><small>{e(kind)} · {e(row.category)} · importance {row.importance}"
        f" · {e(row.project)}{tags}</small></p>",
        "<p><b>From</b> "
        + e(p.agent or "an agent")
        + (f", session {e(p.session_id)}" if p.session_id else "")
        + (f", by {e(p.model)}" if p.model else "")
        + (f", {e(absolute_time(p.extracted_at))}" if p.extracted_at else "")
        + (f"<br><small>{e(p.source)}</small>" if p.source else "")
        + "</p>",
    ]
    if row.is_merge:
        parts.append(merge_html(row))
    elif row.similar_id is None:
        parts.append("<p><i>No existing memory of this project is much like it.</i></p>")
    else:
        warning = " — approving it replaces that memory" if row.similarity > 0.7 else ""
        parts.append(
            f"<h4>Most similar memory: {row.similarity:.0%}{e(warning)}</h4>"
            f"<p><b>{e(row.similar_title)}</b><br>"
            f"<span style='white-space: pre-wrap'>{e(row.similar_content)}</span></p>"
        )
    return "".join(parts)


def merge_html(row: InboxRow) -> str:
    """The memories a merge replaces: approving it supersedes each (undo brings them back)."""
    e = html.escape
    items = "".join(
        f"<li>{e(title)} <small>({e(memory_id)})</small></li>" for memory_id, title in row.merges
    )
    gone = row.merge_count - len(row.merges)
    missing = (
        f"<p><i>{gone} of them no longer exist: approving it is refused.</i></p>" if gone else ""
    )
    return (
        f"<h4>Merges {row.merge_count} memories</h4>"
        "<p>Approving it adds this memory and moves these to the Trash as superseded by it "
        "(Ctrl+Z brings them back). If one of them was edited or removed since, approving "
        f"is refused and nothing changes.</p><ul>{items}</ul>{missing}"
    )

"""Edit an inbox item, then approve it: the editor's form in a dialog."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from ltm_desktop.gui.editing.form import EditorForm, FormValues
from ltm_desktop.gui.mnemonics import assign_mnemonics
from ltm_desktop.gui.models.inbox_model import InboxRow


def form_values(row: InboxRow) -> FormValues:
    return FormValues(row.title, row.content, row.category, row.importance, row.tags, row.ttl_days)


class InboxEditDialog(QDialog):
    """Signals:
    approved(dict, str): the fields the person changed (empty: approve as it was), and
        the scope a proposal's memory goes to (its own unless the person chose another).

    ``scopes``: (project id, name) of every scope a proposal may go to; none: no choice.
    """

    approved = Signal(object, str)

    def __init__(
        self,
        row: InboxRow,
        parent: QWidget | None = None,
        scopes: Sequence[tuple[str, str]] = (),
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Edit, then approve — {row.title}")
        self.resize(640, 480)
        self.base = form_values(row)
        self.form = EditorForm(self)
        self.form.hide_files()
        self.form.set_values(self.base)
        note = QLabel(
            "Approving adds it as a memory now, through the usual rules: text a memory "
            "already holds refreshes that memory instead."
            if row.kind == "proposal"
            else "Approving keeps this memory (with your edits) and takes it off the Inbox.",
            self,
        )
        note.setWordWrap(True)
        note.setEnabled(False)
        self.scope = QComboBox(self)  # where a proposal's memory goes (an extractor may
        for project_id, name in scopes:  # file a general preference under one project)
            self.scope.addItem(name, project_id)
        self.scope.setCurrentIndex(max(0, self.scope.findData(row.project_id)))
        choose = row.kind == "proposal" and not row.is_merge and self.scope.count() > 1
        where = QFormLayout()
        where.addRow("Add &to:", self.scope)
        self.buttons = QDialogButtonBox(self)
        self.approve_button = self.buttons.addButton(
            "&Approve", QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.approve_button.setDefault(True)
        layout = QVBoxLayout(self)
        layout.addWidget(self.form, 1)
        if choose:
            layout.addLayout(where)
        else:
            self.scope.hide()
        layout.addWidget(note)
        layout.addWidget(self.buttons)
        assign_mnemonics(self)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)

    def changes(self) -> dict[str, Any]:
        return self.form.values().changes_from(self.base)

    def target(self) -> str:
        """The scope chosen for the memory ("": the item's own)."""
        chosen = self.scope.currentData()
        return str(chosen) if self.scope.isVisibleTo(self) and chosen else ""

    def accept(self) -> None:
        self.approved.emit(self.changes(), self.target())
        super().accept()

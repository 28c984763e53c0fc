"""Bulk curation of the selected memories: set fields on all of them, and move or copy
them to another scope (the core applies dedup and audits; one Ctrl+Z undoes it all)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from ltm_desktop.core.errors import InvalidInput
from ltm_desktop.core.records import Category
from ltm_desktop.core.rules import MAX_TTL_DAYS
from ltm_desktop.gui.actions import MemoryActions
from ltm_desktop.gui.context import ScopeState
from ltm_desktop.gui.formatting import parse_tags
from ltm_desktop.gui.memory_list.memory_table import MemoryTable
from ltm_desktop.gui.mnemonics import assign_mnemonics
from ltm_desktop.gui.ops import Target

Ok, Cancel = QDialogButtonBox.StandardButton.Ok, QDialogButtonBox.StandardButton.Cancel


def ok_cancel(dialog: QDialog, ok_text: str, on_ok: Callable[[], object]) -> QDialogButtonBox:
    buttons = QDialogButtonBox(
        QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, dialog
    )
    buttons.button(QDialogButtonBox.StandardButton.Ok).setText(ok_text)
    buttons.accepted.connect(on_ok)
    buttons.rejected.connect(dialog.reject)
    return buttons


class BulkEditDialog(QDialog):
    """Fields to set on every selected memory: only the ticked ones change. Tags are
    replaced, or added to and removed from each memory's own."""

    def __init__(self, count: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Set fields of the selected memories")
        self.category = QComboBox(self)
        for category in Category:
            self.category.addItem(category.value.capitalize(), category.value)
        self.importance = QSpinBox(self)
        self.importance.setRange(0, 10)
        self.importance.setValue(5)
        self.tags, self.add_tags, self.remove_tags = (QLineEdit(self) for _ in range(3))
        for field in (self.tags, self.add_tags, self.remove_tags):
            field.setPlaceholderText("comma, separated")
        self.ttl = QSpinBox(self)
        self.ttl.setRange(0, MAX_TTL_DAYS)
        self.ttl.setSpecialValueText("never expires")
        self.ttl.setSuffix(" days")
        self.ticks: dict[str, QCheckBox] = {}
        self._rows: list[tuple[QCheckBox, QWidget]] = []
        form = QFormLayout()
        for name, label, widget in (
            ("category", "&Category", self.category),
            ("importance", "&Importance", self.importance),
            ("tags", "&Tags (replaces their tags)", self.tags),
            ("add_tags", "&Add tags", self.add_tags),
            ("remove_tags", "&Remove tags", self.remove_tags),
            ("ttl_days", "E&xpires", self.ttl),
        ):
            tick = QCheckBox(label, self)
            widget.setEnabled(False)
            tick.toggled.connect(widget.setEnabled)
            self.ticks[name] = tick
            self._rows.append((tick, widget))
            form.addRow(tick, widget)
        self.ticks["tags"].toggled.connect(lambda on: self._untick(on, "add_tags", "remove_tags"))
        for name in ("add_tags", "remove_tags"):
            self.ticks[name].toggled.connect(lambda on: self._untick(on, "tags"))
        self.error = QLabel(self)
        self.error.setWordWrap(True)
        self.buttons = ok_cancel(self, f"&Set on {count:,}", self.on_ok)
        order = [w for pair in self._rows for w in pair]
        order += [self.buttons.button(b) for b in (Ok, Cancel)]
        for before, after in zip(order, order[1:], strict=False):  # top to bottom
            QWidget.setTabOrder(before, after)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addWidget(self.buttons)
        assign_mnemonics(self)

    def rows(self) -> list[tuple[QCheckBox, QWidget]]:
        """(tick, field) for each row, top to bottom."""
        return list(self._rows)

    def _untick(self, ticked: bool, *names: str) -> None:
        """Replacing the tags and editing them exclude each other."""
        for name in names if ticked else ():
            self.ticks[name].setChecked(False)

    def values(self) -> dict[str, Any]:
        """The ticked fields as ``service.update`` takes them, tag edits as ``add_tags`` /
        ``remove_tags`` (InvalidInput for bad tags)."""
        chosen: dict[str, Any] = {}
        if self.ticks["category"].isChecked():
            chosen["category"] = self.category.currentData()
        if self.ticks["importance"].isChecked():
            chosen["importance"] = self.importance.value()
        for name, field in (
            ("tags", self.tags),
            ("add_tags", self.add_tags),
            ("remove_tags", self.remove_tags),
        ):
            if self.ticks[name].isChecked():
                chosen[name] = parse_tags(field.text())
        if self.ticks["ttl_days"].isChecked():
            chosen["ttl_days"] = self.ttl.value() or None
        return chosen

    def on_ok(self) -> None:
        try:
            if not self.values():
                raise InvalidInput("tick at least one field to set", "fields")
        except InvalidInput as exc:
            self.error.setText(str(exc))
            return
        self.accept()


class ScopeDialog(QDialog):
    """The scope to move or copy the selected memories to."""

    def __init__(
        self, count: int, scopes: list[tuple[str, str]], copy: bool, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        verb = "Copy" if copy else "Move"
        self.setWindowTitle(f"{verb} to another scope")
        self.scope = QComboBox(self)
        for project_id, label in scopes:
            self.scope.addItem(label, project_id)
        note = QLabel(
            f"{verb} {count:,} {'memory' if count == 1 else 'memories'} to the scope chosen "
            "below. A memory whose text is already there is not duplicated"
            + ("." if copy else "; the originals go to the Trash (restorable).")
            + " Ctrl+Z undoes it.",
            self,
        )
        note.setWordWrap(True)
        self.buttons = ok_cancel(self, verb, self.accept)
        layout = QVBoxLayout(self)
        layout.addWidget(note)
        layout.addWidget(self.scope)
        layout.addWidget(self.buttons)
        assign_mnemonics(self)

    def chosen(self) -> tuple[str, str]:
        return str(self.scope.currentData()), self.scope.currentText()


def describe_fields(values: dict[str, Any]) -> str:
    """An undo step's name: "Set category, importance", "Add tags urgent", ..."""
    parts = [
        f"{n.replace('_', ' ').capitalize()} {', '.join(values[n])}"
        for n in ("add_tags", "remove_tags")
        if n in values
    ]
    names = [
        n.replace("_days", "").replace("ttl", "expiry")
        for n in values
        if n not in ("add_tags", "remove_tags")
    ]
    if names:
        parts.insert(0, "Set " + ", ".join(names))
    return "; ".join(parts)


class BulkCuration:
    """Opens the dialogs for the memory list's selection and runs what they ask for.

    ``scope_choices`` gives (project id, name) of every scope, ``say`` puts a line in the
    status bar, and ``parent`` holds the dialogs."""

    def __init__(
        self,
        table: MemoryTable,
        actions: MemoryActions,
        scope: ScopeState,
        scope_choices: Callable[[], list[tuple[str, str]]],
        say: Callable[[str], None],
        parent: QWidget,
    ) -> None:
        self._table, self._actions, self._scope = table, actions, scope
        self._scope_choices, self._say, self._parent = scope_choices, say, parent
        self.dialog: QDialog | None = None  # the one open (tests drive it)

    def _selected(self) -> tuple[Target, int]:
        """What the list's selection acts on, and how many memories that is."""
        table = self._table
        target, count = table.selection_target(), table.selected_count()
        if not count:
            self._say("Select memories in the list first.")
        return target, count

    def edit_selected(self) -> BulkEditDialog | None:
        versions, count = self._selected()
        if not count:
            return None
        dialog = BulkEditDialog(count, self._parent)

        def apply() -> None:
            values = dialog.values()
            label = describe_fields(values)
            self._actions.set_fields(versions, values, label)

        dialog.accepted.connect(apply)
        self._open(dialog)
        return dialog

    def transfer_selected(self, copy: bool) -> ScopeDialog | None:
        versions, count = self._selected()
        if not count:
            return None
        here = self._scope.project_id
        choices = self._scope_choices()
        scopes = [(project_id, name) for project_id, name in choices if project_id != here]
        dialog = ScopeDialog(count, scopes, copy, self._parent)

        def apply() -> None:
            target, name = dialog.chosen()
            self._actions.transfer(versions, target, name, copy)

        dialog.accepted.connect(apply)
        self._open(dialog)
        return dialog

    def _open(self, dialog: QDialog) -> None:
        self.dialog = dialog
        dialog.open()

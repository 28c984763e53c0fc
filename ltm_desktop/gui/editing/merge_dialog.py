"""Edits that met someone else's change: both versions side by side, chosen per field.

Each field that the two sides left different shows what you did and what they did to
the version you started from (the History view's word diff), and a choice of which to
take. "Keep mine" alone would drop their edit to a field you both changed; here the
person sees it and decides.
"""

from __future__ import annotations

import html
from dataclasses import asdict, replace
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QButtonGroup,
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QLabel,
    QRadioButton,
    QScrollArea,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from ltm_desktop.gui.editing.form import FormValues
from ltm_desktop.gui.mnemonics import assign_mnemonics
from ltm_desktop.gui.panels.diff_html import FIELD_ORDER, TEXT_FIELDS, _value, word_diff

MINE, THEIRS = "mine", "theirs"
LABELS = {
    "title": "Title",
    "content": "Content",
    "category": "Category",
    "importance": "Importance",
    "tags": "Tags",
    "ttl_days": "Expires",
}


def differing(mine: FormValues, theirs: FormValues) -> list[str]:
    """The fields where the two versions disagree, in the editor's order."""
    a, b = asdict(mine), asdict(theirs)
    return [name for name in FIELD_ORDER if name in a and a[name] != b[name]]


def change_html(name: str, base: Any, value: Any) -> str:
    """``value`` against the version both started from: a word diff, or old → new."""
    if name in TEXT_FIELDS:
        return word_diff(str(base), str(value)) if base != value else _plain(name, value)
    if base == value:
        return _plain(name, value)
    return f"<s>{_plain(name, base)}</s> → {_plain(name, value)}"


def _plain(name: str, value: Any) -> str:
    return html.escape(_value(name, value)).replace("\n", "<br>")


class MergeDialog(QDialog):
    """One row per differing field: yours | theirs, each with a button to take it.

    A field only you changed starts on yours, one only they changed on theirs, one you
    both changed on yours (the person sees theirs next to it)."""

    def __init__(
        self,
        base: FormValues,
        mine: FormValues,
        theirs: FormValues,
        who: str,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Your edits and theirs")
        self._mine, self._theirs = mine, theirs
        self.fields = differing(mine, theirs)
        self.choices: dict[str, QButtonGroup] = {}
        intro = QLabel(
            f"While you were editing, {who} changed this memory. For each field that now "
            "differs, choose the version to keep; nothing is saved until you save.",
            self,
        )
        intro.setWordWrap(True)
        grid = QGridLayout()
        grid.addWidget(QLabel("<b>Yours</b>", self), 0, 1)
        grid.addWidget(QLabel(f"<b>Theirs</b> ({who})", self), 0, 2)
        b, m, t = asdict(base), asdict(mine), asdict(theirs)
        for row, name in enumerate(self.fields, start=1):
            grid.addWidget(
                QLabel(f"<b>{LABELS.get(name, name)}</b>", self), row, 0, Qt.AlignmentFlag.AlignTop
            )
            group = QButtonGroup(self)
            for column, (side, value) in enumerate(((MINE, m[name]), (THEIRS, t[name])), start=1):
                cell = QWidget(self)
                box = QVBoxLayout(cell)
                box.setContentsMargins(0, 0, 0, 0)
                button = QRadioButton("Take yours" if side == MINE else "Take theirs", cell)
                button.setObjectName(f"{name}:{side}")
                group.addButton(button, column)
                view = QTextBrowser(cell)
                view.setHtml(change_html(name, b[name], value))
                view.setMaximumHeight(160 if name == "content" else 60)
                box.addWidget(button)
                box.addWidget(view)
                grid.addWidget(cell, row, column)
            mine_changed, theirs_changed = m[name] != b[name], t[name] != b[name]
            start = MINE if mine_changed or not theirs_changed else THEIRS
            group.button(1 if start == MINE else 2).setChecked(True)
            self.choices[name] = group
        body = QWidget(self)
        body.setLayout(grid)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setWidget(body)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Use these")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(scroll, 1)
        layout.addWidget(self.buttons)
        assign_mnemonics(self)
        self.resize(760, 520)

    def take(self, name: str, side: str) -> None:
        """Choose a side for a field (what its radio button does)."""
        self.choices[name].button(1 if side == MINE else 2).setChecked(True)

    def chosen(self) -> dict[str, str]:
        return {n: MINE if g.checkedId() == 1 else THEIRS for n, g in self.choices.items()}

    def merged(self) -> FormValues:
        """Their version with the fields chosen from yours."""
        mine = asdict(self._mine)
        taken = {n: mine[n] for n, side in self.chosen().items() if side == MINE}
        return replace(self._theirs, **taken)

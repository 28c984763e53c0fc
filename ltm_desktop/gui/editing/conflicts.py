"""A write refused because the memory changed meanwhile: reload, overwrite, or compare first."""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from ltm_desktop.core.records import EDITABLE_FIELDS
from ltm_desktop.gui import ops
from ltm_desktop.gui.errors import ErrorReporter
from ltm_desktop.gui.mnemonics import assign_mnemonics
from ltm_desktop.gui.panels.diff_html import event_html, values_html

RELOAD, OVERWRITE, CANCEL = "reload", "overwrite", "cancel"


def _who(conflict: ops.WriteConflict) -> str:
    names = ["this app (another window)" if a == ops.ACTOR else a for a in conflict.changed_by()]
    return ", ".join(names) or "someone else"


def _what(conflict: ops.WriteConflict) -> str:
    trashed = conflict.current.disabled and conflict.write.action != "restore"
    return "moved it to the Trash" if trashed else "changed it"


def explain(conflicts: Sequence[ops.WriteConflict], doing: str) -> str:
    """Why nothing was written, and what each choice does."""
    if len(conflicts) == 1:
        c = conflicts[0]
        head = (
            f"Could not {doing}: after you saw “{html.escape(c.current.title)}”, "
            f"{html.escape(_who(c))} {_what(c)}. Nothing was written."
        )
    else:
        titles = "".join(f"<li>{html.escape(c.current.title)}</li>" for c in conflicts[:10])
        more = f"<li>… and {len(conflicts) - 10} more</li>" if len(conflicts) > 10 else ""
        head = (
            f"Could not {doing} for {len(conflicts)} memories: someone else changed them "
            f"after you saw them. Nothing was written to them.<ul>{titles}{more}</ul>"
        )
    return (
        f"<p>{head}</p><p><b>Reload</b> drops your change and shows what is stored now; "
        "<b>Overwrite</b> makes your change anyway, over theirs; <b>Compare</b> shows what "
        "you wanted next to what is stored.</p>"
    )


def _wanted(conflict: ops.WriteConflict) -> str:
    write, current = conflict.write, conflict.current
    if write.action == "update":
        stored = ops.editable_values(current, [n for n in write.values if n in EDITABLE_FIELDS])
        return values_html(stored, write.values)
    if write.action == "keep":
        return "<p>Keep it: mark it reviewed, so it leaves the stale list.</p>"
    return values_html({"disabled": current.disabled}, {"disabled": write.action == "remove"})


def compare_html(conflicts: Sequence[ops.WriteConflict]) -> str:
    """Per memory: what the person wanted against what is stored, then what changed since."""
    parts = []
    for c in conflicts:
        parts.append(f"<h3>{html.escape(c.current.title)}</h3>")
        parts.append("<p><b>Your change</b>, against what is stored now:</p>")
        parts.append(_wanted(c))
        parts.append("<p><b>What happened since you saw it</b>:</p>")
        parts += [event_html(e) for e in c.since] or ["<p>No recorded change.</p>"]
    return "".join(parts)


COMPARE_MIN_HEIGHT = 280


class ConflictDialog(QDialog):
    """Asks what to do about writes refused because their memories changed.

    Signals:
        chosen(str): ``reload``, ``overwrite`` or ``cancel`` (also when closed), once.
    """

    chosen = Signal(str)

    def __init__(
        self, conflicts: Sequence[ops.WriteConflict], doing: str, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.conflicts = list(conflicts)
        self.choice: str | None = None
        self.setWindowTitle("Changed by someone else")
        self.setMinimumWidth(560)
        self.message = QLabel(explain(self.conflicts, doing), self)
        self.message.setWordWrap(True)
        self.compare_view = QTextBrowser(self)
        self.compare_view.setOpenLinks(False)
        self.compare_view.setHtml(compare_html(self.conflicts))
        self.compare_view.hide()
        buttons = QDialogButtonBox(self)
        role = QDialogButtonBox.ButtonRole
        self.reload_button = buttons.addButton("Reload", role.AcceptRole)
        self.overwrite_button = buttons.addButton("Overwrite", role.DestructiveRole)
        self.compare_button = QPushButton("Compare", self)
        self.compare_button.setCheckable(True)
        buttons.addButton(self.compare_button, role.ActionRole)
        self.cancel_button = buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        if not any(c.can_overwrite for c in self.conflicts):
            self.overwrite_button.setEnabled(False)
            self.overwrite_button.setToolTip("It is in the Trash: restore it first.")
        self.reload_button.clicked.connect(lambda: self.choose(RELOAD))
        self.overwrite_button.clicked.connect(lambda: self.choose(OVERWRITE))
        self.cancel_button.clicked.connect(lambda: self.choose(CANCEL))
        self.compare_button.toggled.connect(self.on_compare_toggled)
        self.finished.connect(lambda _result: self.choose(CANCEL))
        layout = QVBoxLayout(self)
        layout.addWidget(self.message)
        layout.addWidget(self.compare_view, 1)
        layout.addWidget(buttons)
        assign_mnemonics(self)
        self.reload_button.setDefault(True)

    def on_compare_toggled(self, shown: bool) -> None:
        """Grow to show the comparison readably, and shrink back when it is hidden."""
        self.compare_view.setVisible(shown)
        self.compare_view.setMinimumHeight(COMPARE_MIN_HEIGHT if shown else 0)
        self.adjustSize()

    def choose(self, choice: str) -> None:
        if self.choice is not None:
            return
        self.choice = choice
        self.chosen.emit(choice)
        self.close()


class ConflictResolver(QObject):
    """Opens a dialog for each refused action and hands back the person's choice.

    Signals:
        shown(object): this ConflictDialog was opened.
    """

    shown = Signal(object)

    def __init__(self, errors: ErrorReporter, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._errors = errors  # its ``window`` is the dialogs' parent
        self._dialogs: list[ConflictDialog] = []

    def ask(
        self,
        conflicts: Sequence[ops.WriteConflict],
        doing: str,
        on_choice: Callable[[str], None],
    ) -> ConflictDialog:
        dialog = ConflictDialog(conflicts, doing, self._errors.window)
        dialog.chosen.connect(lambda choice: self._settled(dialog, choice, on_choice))
        self._dialogs.append(dialog)
        dialog.open()
        self.shown.emit(dialog)
        return dialog

    def _settled(
        self, dialog: ConflictDialog, choice: str, on_choice: Callable[[str], None]
    ) -> None:
        if dialog in self._dialogs:
            self._dialogs.remove(dialog)
        dialog.deleteLater()
        on_choice(choice)

    def open_dialogs(self) -> list[ConflictDialog]:
        return list(self._dialogs)

    def close_all(self) -> None:
        for dialog in list(self._dialogs):
            dialog.chosen.disconnect()
            dialog.close()
            dialog.deleteLater()
        self._dialogs.clear()

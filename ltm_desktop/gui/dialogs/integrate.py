"""Installing (or removing) an agent's hooks and MCP server from the connect dialog.

The same plan as ``ltm-desktop integrate AGENT`` (user scope): its diff is shown first,
and nothing is written until the person presses Apply.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ltm_desktop.agent.integrate import Plan, apply, plan
from ltm_desktop.core.errors import LtmError
from ltm_desktop.gui.mnemonics import assign_mnemonics

# The connect dialog's tab names for the agents ``integrate`` knows.
INTEGRATED_TABS = {"Claude Code": "claude-code", "Codex": "codex", "Gemini CLI": "gemini"}


class IntegrateRow(QWidget):
    """Install… and Remove… buttons for one agent, with what happened below them.

    Signals:
        previewed(PreviewDialog): a preview was opened (tests and callers may drive it).
    """

    previewed = Signal(object)

    def __init__(self, agent: str, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.agent = agent
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        caption = QLabel(
            f"Or let ltm-desktop add its hooks (memory at session start, a reminder every "
            f"few turns, lifecycle notes) and this MCP server to {title}'s own settings "
            "for you: you see the changes before anything is written.",
            self,
        )
        caption.setWordWrap(True)
        row.addWidget(caption, 1)
        self.install_button = QPushButton("Install…", self)
        self.install_button.clicked.connect(lambda: self.preview(uninstall=False))
        row.addWidget(self.install_button)
        self.remove_button = QPushButton("Remove…", self)
        self.remove_button.clicked.connect(lambda: self.preview(uninstall=True))
        row.addWidget(self.remove_button)
        layout.addLayout(row)
        self.result = QLabel(self)
        self.result.setWordWrap(True)
        layout.addWidget(self.result)
        self.dialog: PreviewDialog | None = None

    def preview(self, uninstall: bool) -> None:
        try:
            planned = plan(self.agent, "user", uninstall=uninstall)
        except LtmError as exc:
            self.result.setText(f"Nothing was changed: {exc}")
            return
        if not planned.changes:
            self.result.setText(
                "Nothing to change: "
                + ("ltm-desktop is not in its settings." if uninstall else "already set up.")
            )
            return
        self.dialog = PreviewDialog(planned, self)
        self.dialog.applied.connect(self.result.setText)
        self.dialog.open()
        self.previewed.emit(self.dialog)


class PreviewDialog(QDialog):
    """The diff of a plan; Apply writes it (with backups).

    Signals:
        applied(str): what was done, or why nothing was.
    """

    applied = Signal(str)

    def __init__(self, planned: Plan, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plan = planned
        verb = "Remove ltm-desktop from" if planned.uninstall else "Add ltm-desktop to"
        self.setWindowTitle(f"{verb} {planned.agent}")
        self.setMinimumSize(800, 500)
        layout = QVBoxLayout(self)
        files = ", ".join(str(c.path) for c in planned.changes)
        intro = QLabel(f"These changes will be made to {files} (each file is backed up first):")
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.diff = QPlainTextEdit(planned.diff(), self)
        self.diff.setReadOnly(True)
        self.diff.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.diff.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        layout.addWidget(self.diff)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Apply | QDialogButtonBox.StandardButton.Cancel, self
        )
        self.apply_button = self.buttons.button(QDialogButtonBox.StandardButton.Apply)
        self.apply_button.clicked.connect(self.on_apply)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        assign_mnemonics(self)

    def on_apply(self) -> None:
        try:
            lines = apply(self.plan)
        except LtmError as exc:
            self.applied.emit(f"Nothing was changed: {exc}")
        else:
            self.applied.emit("\n".join(lines))
        self.accept()

"""The Projects list's "Merge into…": merge one project into another, after a question.

The question names both projects and how many memories move, picks the target from the
other projects (global excluded: ``core.projects.merging`` refuses it), and defaults to
Cancel; the merge runs on a worker (``MemoryService.scopes.merge``: deduplicated, audited,
the originals in the source's Trash) and its outcome goes to the status bar. It is not on
the undo stack: the question says so.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QLabel, QVBoxLayout, QWidget

from ltm_desktop.core.projects.merging import Merged
from ltm_desktop.core.records import GUI_ACTOR
from ltm_desktop.gui.context import AppContext
from ltm_desktop.gui.formatting import count_label
from ltm_desktop.gui.models.projects_model import ProjectRow

NOTE = (
    "Identical memories become one; each moved original goes to the Trash of “{source}”, "
    "with its history. Its observations and paths move too. There is no undo "
    "(the two can be split again only by moving memories)."
)


def merged_text(merged: Merged, source: str, target: str) -> str:
    what = count_label(merged.memories, "memory", "memories")
    same = merged.outcomes.get("deduplicated", 0)
    twins = f", {same:,} already there" if same else ""
    return f"Merged “{source}” into “{target}”: {what} moved{twins}."


class MergeDialog(QDialog):
    """Which project to merge ``source`` into, and whether to."""

    def __init__(self, source: ProjectRow, targets: list[ProjectRow], parent: QWidget) -> None:
        super().__init__(parent)
        self.setWindowTitle("Merge project")
        self.source = source
        self.targets = targets
        moving = count_label(source.active, "memory", "memories")
        self.question = QLabel(f"Move the {moving} of “{source.name}” into:", self)
        self.choice = QComboBox(self)
        for row in targets:
            self.choice.addItem(row.label or row.name, row.project_id)
        self.note = QLabel(NOTE.format(source=source.name), self)
        self.note.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel, parent=self)
        self.merge_button = self.buttons.addButton(
            "Merge", QDialogButtonBox.ButtonRole.DestructiveRole
        )
        self.buttons.button(QDialogButtonBox.StandardButton.Cancel).setDefault(True)
        self.merge_button.clicked.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.question)
        layout.addWidget(self.choice)
        layout.addWidget(self.note)
        layout.addWidget(self.buttons)

    def target(self) -> ProjectRow:
        return self.targets[self.choice.currentIndex()]


class ProjectMerger(QObject):
    """Asks (``ask``), then merges on a worker.

    Signals:
        message(str): the outcome, for the status bar.
        merged(str): the target's project id, once a merge is done.
    """

    message = Signal(str)
    merged = Signal(str)

    def __init__(self, ctx: AppContext, parent: QWidget) -> None:
        super().__init__(parent)
        self._ctx = ctx
        self._parent = parent
        self.dialog: MergeDialog | None = None  # the open question, if any

    def ask(self, source: ProjectRow, projects: list[ProjectRow]) -> None:
        targets = [p for p in projects if not p.is_global and p.project_id != source.project_id]
        if source.is_global or not targets:
            self.message.emit("There is no other project to merge it into.")
            return
        dialog = MergeDialog(source, targets, self._parent)

        def finished(result: int) -> None:
            self.dialog = None
            if result == QDialog.DialogCode.Accepted:
                self._merge(source, dialog.target())
            dialog.deleteLater()

        dialog.finished.connect(finished)
        self.dialog = dialog
        dialog.open()

    def _merge(self, source: ProjectRow, target: ProjectRow) -> None:
        service = self._ctx.service

        def done(merged: Merged) -> None:
            self.message.emit(merged_text(merged, source.name, target.name))
            self.merged.emit(target.project_id)

        self._ctx.runner.run(
            lambda: service.scopes.merge(source.project_id, target.project_id, GUI_ACTOR),
            done,
            lambda exc: self._ctx.errors.report(exc, f"merge “{source.name}”"),
        )

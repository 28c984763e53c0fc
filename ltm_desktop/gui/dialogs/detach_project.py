"""The Projects list's "Make this folder its own project…": on this machine, a clone stops
being its repository's project (``MemoryService.scopes.detach``: the path is pinned to
its own path project), after a question that defaults to Cancel.

Memories stay where they are: the repository's project keeps them, and the folder's own
project starts empty (``Merge into…`` joins the two again). Other machines' clones are
not touched.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QVBoxLayout, QWidget

from ltm_desktop.core.records import Project
from ltm_desktop.gui.context import AppContext
from ltm_desktop.gui.models.projects_model import ProjectRow

NOTE = (
    "Agents working in this folder on this machine will use a project of its own from now "
    "on. The memories of “{name}” stay where they are; clones on other machines are not "
    "changed. “Merge into…” joins the two projects again."
)


class DetachDialog(QDialog):
    """Whether to make ``row``'s folder on this machine a project of its own."""

    def __init__(self, row: ProjectRow, path: str, parent: QWidget) -> None:
        super().__init__(parent)
        self.setWindowTitle("Make this folder its own project")
        self.question = QLabel(f"Make {path} its own project on this machine?", self)
        self.question.setWordWrap(True)
        self.note = QLabel(NOTE.format(name=row.name), self)
        self.note.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel, parent=self)
        self.detach_button = self.buttons.addButton(
            "Make it its own project", QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.buttons.button(QDialogButtonBox.StandardButton.Cancel).setDefault(True)
        self.detach_button.clicked.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.question)
        layout.addWidget(self.note)
        layout.addWidget(self.buttons)


class ProjectDetacher(QObject):
    """Asks (``ask``), then detaches on a worker.

    Signals:
        message(str): the outcome, for the status bar.
        detached(str): the folder's own project id, once it is.
    """

    message = Signal(str)
    detached = Signal(str)

    def __init__(self, ctx: AppContext, parent: QWidget) -> None:
        super().__init__(parent)
        self._ctx = ctx
        self._parent = parent
        self.dialog: DetachDialog | None = None  # the open question, if any

    def ask(self, row: ProjectRow) -> None:
        path = row.path
        if path is None:
            self.message.emit(f"“{row.name}” has no folder on this machine.")
            return
        dialog = DetachDialog(row, path, self._parent)

        def finished(result: int) -> None:
            self.dialog = None
            if result == QDialog.DialogCode.Accepted:
                self._detach(path)
            dialog.deleteLater()

        dialog.finished.connect(finished)
        self.dialog = dialog
        dialog.open()

    def _detach(self, path: str) -> None:
        service = self._ctx.service

        def done(project: Project) -> None:
            self.message.emit(f"{project.path} is its own project on this machine now.")
            self.detached.emit(project.project_id)

        self._ctx.runner.run(
            lambda: service.scopes.detach(path),
            done,
            lambda exc: self._ctx.errors.report(exc, f"detach {path}"),
        )

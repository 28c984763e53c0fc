"""What every panel is given: the service and the shared GUI services around it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from PySide6.QtCore import QObject, QSettings, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from ltm_desktop.core.records import GLOBAL_PROJECT_ID
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.api_status import ApiStatus
from ltm_desktop.gui.bridge import ServiceBridge
from ltm_desktop.gui.errors import ErrorReporter
from ltm_desktop.gui.tasks import TaskRunner
from ltm_desktop.gui.undo import UndoStack


class ScopeState(QObject):
    """The selected scope, which every view follows.

    Signals:
        scope_changed(str): the project id now selected.
    """

    scope_changed = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.project_id = GLOBAL_PROJECT_ID
        self.name = "Global"

    def set_scope(self, project_id: str, name: str) -> None:
        self.name = name
        if project_id != self.project_id:
            self.project_id = project_id
            self.scope_changed.emit(project_id)


class Prompter(Protocol):
    """Questions that need an answer before going on (tests answer them without a dialog)."""

    def unsaved_changes(self, parent: QWidget, title: str) -> str:
        """``save``, ``discard`` or ``cancel``."""
        ...

    def confirm_import(self, parent: QWidget, preview: str) -> bool:
        """Whether to import what ``preview`` describes."""
        ...


class DialogPrompter:
    """The questions asked with message boxes."""

    def unsaved_changes(self, parent: QWidget, title: str) -> str:
        """``save``, ``discard`` or ``cancel``."""
        buttons = (
            QMessageBox.StandardButton.Save
            | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel
        )
        answer = QMessageBox.question(
            parent,
            "Unsaved changes",
            f"“{title}” has unsaved changes. Save them first?",
            buttons,
            QMessageBox.StandardButton.Save,
        )
        if answer == QMessageBox.StandardButton.Save:
            return "save"
        return "discard" if answer == QMessageBox.StandardButton.Discard else "cancel"

    def confirm_import(self, parent: QWidget, preview: str) -> bool:
        answer = QMessageBox.question(
            parent, "Import memories", f"{preview}\n\nImport these memories?"
        )
        return answer == QMessageBox.StandardButton.Yes


@dataclass
class AppContext:
    service: MemoryService
    runner: TaskRunner
    bridge: ServiceBridge
    errors: ErrorReporter
    undo: UndoStack
    scope: ScopeState
    settings: QSettings
    prompter: Prompter
    api: ApiStatus | None
    data_dir_label: str


def build_context(
    service: MemoryService, settings: QSettings, api: ApiStatus | None, label: str, parent: QWidget
) -> AppContext:
    """The shared services of one window (``parent``), for a data dir called ``label``."""
    runner = TaskRunner(parent=parent)
    errors = ErrorReporter(parent)
    runner.error_handler = errors.report
    return AppContext(
        service=service,
        runner=runner,
        bridge=ServiceBridge(service, runner, parent=parent),
        errors=errors,
        undo=UndoStack(parent),
        scope=ScopeState(parent),
        settings=settings,
        prompter=DialogPrompter(),
        api=api,
        data_dir_label=label,
    )

"""A warning bar for MEMORY.md files that could not be written (the memories are safe)."""

from __future__ import annotations

import html
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QWidget

from ltm_desktop.core.records import MemoryMdProblem
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.dialogs.connect import open_folder
from ltm_desktop.gui.tasks import TaskRunner
from ltm_desktop.gui.window.banner import Banner


def describe_problems(problems: list[MemoryMdProblem], scope_name: str) -> str:
    """Rich text naming the first file's scope, why it failed, and how many others did."""
    first = problems[0]
    others = len(problems) - 1
    more = f" (and {others} other file{'s' if others != 1 else ''})" if others else ""
    return (
        f"<b>MEMORY.md of {html.escape(scope_name)} could not be written</b>{more}: "
        f"{html.escape(first.reason)}<br>"
        f"<code>{html.escape(first.path)}</code><br>"
        "Your memories are saved in the database; agents reading this file see an older "
        "version until it can be written. ltm-desktop retries automatically."
    )


class MemoryMdWarning(Banner):
    """Shown while any MEMORY.md is out of date; offers to retry at once.

    Signals:
        _received(list): problems reported by the service, from any thread.
    """

    _received = Signal(object)

    def __init__(self, service: MemoryService, runner: TaskRunner, parent: QWidget | None) -> None:
        super().__init__(parent)
        self.setObjectName("banner")
        self._service = service
        self._runner = runner
        self._received.connect(self.on_problems, Qt.ConnectionType.QueuedConnection)
        self._unsubscribe: Callable[[], None] | None = service.memory_md.subscribe(
            self._received.emit
        )
        self.on_problems(service.memory_md.problems())

    def stop(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def on_problems(self, problems: list[MemoryMdProblem]) -> None:
        if not problems:
            self.hide()
            return
        first = problems[0]
        text = describe_problems(problems, self._scope_name(first.project_id))
        folder = Path(first.path).parent
        while not folder.is_dir() and folder != folder.parent:  # the nearest that exists
            folder = folder.parent
        self.show_message(
            text, [("Show folder", lambda: self._show(folder)), ("Retry now", self.retry)]
        )

    def _show(self, folder: Path) -> None:
        open_folder(folder)
        self.show()  # the banner hides on any choice; the problem is still there

    def _scope_name(self, project_id: str) -> str:
        return self._service.project_name(project_id)  # a name reads better than an id

    def retry(self) -> None:
        self._runner.run(self._service.memory_md.retry, self.on_problems)

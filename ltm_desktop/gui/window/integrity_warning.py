"""A warning bar when the database's quick check at start finds something wrong.

The check (``MemoryService.verify(quick=True)``: SQLite's quick check, the audit
history's append-only guard and the chain over its newest events) runs once, in the
background, when the window opens; a clean database shows nothing, and neither does a
database server that cannot be reached (not a finding about the data: the status bar
says the app is offline).
"""

from __future__ import annotations

import html

from PySide6.QtWidgets import QWidget

from ltm_desktop.core.backend import Verification
from ltm_desktop.core.errors import DatabaseUnreachable
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.tasks import TaskRunner
from ltm_desktop.gui.window.banner import Banner


def describe(found: Verification) -> str:
    first = found.problems[0]
    more = len(found.problems) - 1
    others = f" (and {more} more)" if more else ""
    return (
        f"<b>The database did not pass its check at start</b>{others}: {html.escape(first)}."
        "<br>Run <code>ltm-desktop verify</code> for the full check; a backup "
        "(<code>ltm-desktop backup</code>) keeps the database as it is now."
    )


class IntegrityWarning(Banner):
    """Hidden unless the quick check at start finds a problem."""

    def __init__(self, service: MemoryService, runner: TaskRunner, parent: QWidget | None) -> None:
        super().__init__(parent)
        self.found: Verification | None = None
        self.unchecked: str | None = None  # why the check could not run (offline)
        runner.run(
            lambda: service.integrity.verify(quick=True),
            self.on_checked,
            self.on_failed,
            key=f"integrity-{id(self)}",
        )

    def on_failed(self, exc: BaseException) -> None:
        if isinstance(exc, DatabaseUnreachable):
            self.unchecked = str(exc)  # not failed: nothing is known of the data yet
            return
        self.on_checked(Verification((str(exc),), quick=True))

    def on_checked(self, found: Verification) -> None:
        self.found = found
        if found.problems:
            self.show_message(describe(found), [("Dismiss", lambda: None)])

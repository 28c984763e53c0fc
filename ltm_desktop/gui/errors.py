"""Errors explained in words: a dialog for the person, a traceback only in the log.

A database server that cannot be reached is not an error to click away each time a panel
loads: the app works offline from this machine's read cache and queues its edits, so
the reason goes to the status bar (``passing``) and no dialog opens."""

from __future__ import annotations

import logging
import sys
from types import TracebackType
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from ltm_desktop.core.errors import (
    Conflict,
    DatabaseBusy,
    DatabaseTooNew,
    DatabaseUnreachable,
    InvalidInput,
    LtmError,
    NotADatabase,
    NotFound,
    StorageError,
)
from ltm_desktop.gui.mnemonics import assign_mnemonics

log = logging.getLogger(__name__)


class EditConflict(LtmError):
    """The memory changed in the database after the editor loaded it.

    Attributes:
        conflict: the ``ops.WriteConflict`` (the save, the current memory, what happened).
    """

    def __init__(self, conflict: Any) -> None:
        super().__init__("the memory was changed by someone else after you opened it")
        self.conflict = conflict
        self.current = conflict.current


def describe(exc: BaseException) -> tuple[str, str]:
    """A title and a sentence or two a person can act on."""
    if isinstance(exc, DatabaseTooNew | NotADatabase):
        return "Database cannot be opened", f"{exc}\n\nThe file was left untouched."
    if isinstance(exc, DatabaseBusy):
        return (
            "Database busy",
            f"{exc}.\n\nNothing was changed. Another program holds the database locked; "
            "do it again in a moment.",
        )
    if isinstance(exc, DatabaseUnreachable):
        return (
            "Working offline",
            f"{exc}.\n\nThe memories this machine keeps are shown, and edits are queued "
            "and written when the database answers.",
        )
    if isinstance(exc, StorageError):
        return (
            "Database problem",
            f"The database could not complete the operation: {exc}\n\n"
            "Nothing was written. If the disk is full, free some space; if another "
            "program holds the database locked, try again in a moment.",
        )
    if isinstance(exc, Conflict):
        return "Conflicting memory", str(exc)
    if isinstance(exc, NotFound):
        return "Memory not found", f"{exc}. It may have been changed or removed meanwhile."
    if isinstance(exc, InvalidInput):
        return "Value not accepted", str(exc)
    if isinstance(exc, LtmError):
        return "Could not do that", str(exc)
    return (
        "Unexpected error",
        f"Something went wrong that ltm-desktop did not expect ({type(exc).__name__}: {exc}).\n\n"
        "The details were written to the log; your data is safe.",
    )


class ErrorReporter(QObject):
    """Shows errors in a non-blocking dialog over the main window and logs them.

    Signals:
        error_shown(str, str): a dialog with this title and message was opened.
        passing(str): a line for the status bar instead of a dialog (working offline).
    """

    error_shown = Signal(str, str)
    passing = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.window: QWidget | None = None
        self.shown: list[BaseException] = []
        self._boxes: list[QMessageBox] = []

    def report(self, exc: BaseException, doing: str = "") -> None:
        if isinstance(exc, LtmError):
            log.warning("%s%s", f"{doing}: " if doing else "", exc)
        else:
            log.error("unexpected error %s", doing, exc_info=exc)
        self.shown.append(exc)
        if isinstance(exc, DatabaseUnreachable):
            what = f"Could not {doing}: t" if doing else "T"
            self.passing.emit(f"{what}he database cannot be reached (working offline).")
            return
        title, message = describe(exc)
        if doing:
            message = f"Could not {doing}.\n\n{message}"
        box = QMessageBox(QMessageBox.Icon.Warning, title, message, QMessageBox.StandardButton.Ok)
        box.setParent(self.window, box.windowFlags())
        box.finished.connect(lambda _=0, b=box: self._forget(b))
        self._boxes.append(box)
        assign_mnemonics(box)
        if isinstance(exc, DatabaseBusy):  # passing: the window stays usable meanwhile
            box.setWindowModality(Qt.WindowModality.NonModal)
            box.show()
        else:
            box.open()
        self.error_shown.emit(title, message)

    def open_boxes(self) -> list[QMessageBox]:
        return list(self._boxes)

    def _forget(self, box: QMessageBox) -> None:
        if box in self._boxes:
            self._boxes.remove(box)
        box.deleteLater()

    def close_all(self) -> None:
        for box in list(self._boxes):
            box.close()
        self._boxes.clear()


def install_excepthook(reporter: ErrorReporter) -> None:
    """An exception escaping a slot shows a dialog and is logged instead of being lost."""
    previous = sys.excepthook

    def hook(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
        if issubclass(kind, KeyboardInterrupt):
            previous(kind, value, tb)
            return
        try:  # report() logs it with its traceback
            reporter.report(value)
        except Exception:  # the dialog itself failed: fall back to stderr
            previous(kind, value, tb)

    sys.excepthook = hook

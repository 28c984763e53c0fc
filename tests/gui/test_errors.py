"""Database errors become dialogs, never crashes or tracebacks."""

from __future__ import annotations

import sys

import pytest
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from ltm_desktop.core.errors import StorageError
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.errors import ErrorReporter, describe, install_excepthook
from tests.gui.conftest import WindowFactory, add


def test_storage_error_during_delete_shows_a_dialog(
    qtbot: QtBot,
    make_window: WindowFactory,
    service: MemoryService,
    billing: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    memory = add(service, billing, "Something to delete")
    window = make_window(service, scope=billing)
    qtbot.waitUntil(lambda: window.table.select_memory(memory.id))

    def broken(*args: object, **kwargs: object) -> None:
        raise StorageError("database or disk is full")

    monkeypatch.setattr(service.bulk, "write_many", broken)  # the GUI's writes, batched
    window.table.list_view.setFocus()
    window.menu_actions.delete.trigger()
    qtbot.waitUntil(lambda: bool(window.ctx.errors.open_boxes()))
    box = window.ctx.errors.open_boxes()[0]
    assert box.windowTitle() == "Database problem"
    assert "disk is full" in box.text()
    assert "Traceback" not in box.text()
    assert window.isVisible()
    box.button(QMessageBox.StandardButton.Ok).click()
    qtbot.waitUntil(lambda: not window.ctx.errors.open_boxes())
    assert not service.get(memory.id).disabled


def test_storage_error_while_loading_shows_a_dialog(
    qtbot: QtBot,
    make_window: WindowFactory,
    service: MemoryService,
    billing: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    window = make_window(service)

    def locked(*args: object, **kwargs: object) -> None:
        raise StorageError("database is locked")

    monkeypatch.setattr(service, "list_memories", locked)
    window.projects.select(billing)
    qtbot.waitUntil(lambda: bool(window.ctx.errors.open_boxes()))
    assert "database is locked" in window.ctx.errors.open_boxes()[0].text()


def test_every_core_error_has_words() -> None:
    for exc in (StorageError("locked"), ValueError("bug")):
        title, message = describe(exc)
        assert title
        assert message
    assert (
        "unexpected" in describe(ValueError("x"))[1].lower()
        or "did not expect" in describe(ValueError("x"))[1]
    )


def test_excepthook_shows_a_dialog_instead_of_crashing(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    reporter = ErrorReporter()
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    install_excepthook(reporter)
    try:
        raise RuntimeError("boom in a slot")
    except RuntimeError:
        sys.excepthook(*sys.exc_info())
    assert [type(e) for e in reporter.shown] == [RuntimeError]
    assert "boom in a slot" in reporter.open_boxes()[0].text()
    reporter.close_all()

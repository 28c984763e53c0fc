"""A database locked by another program: "Saving…" at once, then a retryable, non-modal error."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from ltm_desktop.core.errors import DatabaseBusy
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.paths import DataPaths
from ltm_desktop.gui.errors import ErrorReporter
from ltm_desktop.store import open_store
from tests.conftest import FakeClock
from tests.gui.conftest import WindowFactory, add, click


@pytest.fixture
def quick_service(tmp_path: Path, clock: FakeClock) -> Iterator[MemoryService]:
    """A service whose writes give up on a lock after 0.3 s, not 10 s (the test's patience)."""
    paths = DataPaths(tmp_path / "busy")
    store = open_store(paths.db_path, paths.backup_dir, busy_timeout_ms=300)
    service = MemoryService(store, paths, clock=clock)
    service.start()
    yield service
    service.close()


def test_a_locked_database_shows_saving_then_a_retry(
    qtbot: QtBot, make_window: WindowFactory, quick_service: MemoryService
) -> None:
    service = quick_service
    project = service.resolve_scope(cwd="/srv/app", register=True)
    memory = add(service, project, "Deploys go out on Tuesdays", importance=3)
    window = make_window(service, scope=project)
    qtbot.waitUntil(lambda: window.table.select_memory(memory.id))
    qtbot.waitUntil(lambda: window.editor.memory_id == memory.id)
    other = sqlite3.connect(service.paths.db_path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another program takes the write lock
    try:
        editor = window.editor
        editor.form.importance.setValue(8)
        editor.save()
        assert editor.saving_label.isVisible()  # at once, before the write has a chance
        qtbot.waitUntil(lambda: editor.banner.button("Retry") is not None, timeout=10_000)
        assert not editor.saving_label.isVisible()
        assert "holds the database locked" in editor.banner.label.text()
        assert window.ctx.errors.open_boxes() == []  # nothing modal in the way
        assert editor.form.importance.value() == 8  # the edit is kept
        assert service.get(memory.id).importance == 3
    finally:
        other.execute("ROLLBACK")
        other.close()
    click(editor.banner, "Retry")
    qtbot.waitUntil(lambda: service.get(memory.id).importance == 8)
    qtbot.waitUntil(lambda: not editor.banner.isVisible())


def test_a_busy_database_elsewhere_is_reported_without_blocking(qtbot: QtBot) -> None:
    reporter = ErrorReporter()
    with qtbot.waitSignal(reporter.error_shown) as shown:
        reporter.report(DatabaseBusy("the database /x is busy"), "move to the Trash")
    assert shown.args[0] == "Database busy"
    [box] = reporter.open_boxes()
    assert box.windowModality() == Qt.WindowModality.NonModal
    reporter.close_all()

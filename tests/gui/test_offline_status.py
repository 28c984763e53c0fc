"""The window's status bar while the shared database cannot be reached: "offline — N
changes waiting (oldest …)", from the service's real outbox, gone once all is written."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from ltm_desktop.core.backend import MemoryStore
from ltm_desktop.core.errors import DatabaseUnreachable, LtmError
from ltm_desktop.core.offline import QueuedKind, QueuedWrite
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.paths import DataPaths
from ltm_desktop.gui.window.main_window import MainWindow
from ltm_desktop.outbox import DeferredStore, LocalOutbox

DOWN = "cannot reach PostgreSQL at db.example:5432/ltm: connection refused"


@pytest.fixture
def outbox(service: MemoryService) -> Iterator[LocalOutbox]:
    box = LocalOutbox(service.paths.data_dir, lambda: DOWN, offline=DOWN)
    service.offline = box
    yield box
    box.close()


def _queue(box: LocalOutbox, service: MemoryService, n: int) -> None:
    for i in range(n):
        box.queue(
            QueuedWrite(0, QueuedKind.ADD, f"mem_{i:021x}", "global", "claude-code",
                        service.now(), {"content": f"fact {i}"})
        )  # fmt: skip


def test_the_status_bar_says_offline_with_the_changes_waiting(
    qtbot: QtBot,
    service: MemoryService,
    outbox: LocalOutbox,
    make_window: Callable[..., MainWindow],
) -> None:
    window = make_window(service)
    label = window.status.offline_label
    assert not label.isVisible() or label.text().startswith("offline — 0")
    _queue(outbox, service, 3)
    qtbot.waitUntil(lambda: label.text().startswith("offline — 3 changes waiting"))
    assert label.isVisible()
    assert "(oldest" in label.text()
    assert DOWN in label.toolTip()  # why, for whoever hovers

    outbox._set_problem(None)  # the server answers again; the writes are replayed
    outbox._service = service
    outbox.replay_all()
    qtbot.waitUntil(lambda: not label.isVisible())


def test_the_window_opens_on_a_store_the_server_of_which_is_down(
    qtbot: QtBot, tmp_path: Path, make_window: Callable[..., MainWindow]
) -> None:
    """The app started while PostgreSQL is down: the window opens, says why its lists are
    empty, and shows the outbox (its store connects once the server answers)."""
    store = DeferredStore(_never, "PostgreSQL at db.example:5432/ltm", DOWN)
    paths = DataPaths(tmp_path / "offline-data")
    paths.data_dir.mkdir()
    service = MemoryService(store.as_store(), paths)
    box = LocalOutbox(paths.data_dir, lambda: DOWN, offline=DOWN)
    service.offline = box
    try:
        window = make_window(service)
        qtbot.waitUntil(lambda: window.status.offline_label.text().startswith("offline — 0"))
        assert all(isinstance(e, LtmError) for e in window.ctx.errors.shown)
        window.close()
        window.shutdown()
    finally:
        service.close()


def _never() -> MemoryStore:
    raise DatabaseUnreachable(DOWN)

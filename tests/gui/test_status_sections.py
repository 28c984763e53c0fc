"""The status bar in fixed sections that never overlap: scope count | background work |
message (elided, its whole text in a tooltip) | the agent API."""

from __future__ import annotations

from PySide6.QtWidgets import QMainWindow, QWidget
from pytestqt.qtbot import QtBot

from ltm_desktop.core.records import IndexStatus
from ltm_desktop.gui.window.status_bar import StatusBar
from tests.gui.conftest import FakeApi

INDEXING = IndexStatus("minilm", 1_200, 100_000, True, None)
SAVED = "Saved “Production deployment runs the migrations before the switch”. Ctrl+Z undoes it."


def status_in_window(qtbot: QtBot, api: object, width: int = 800) -> tuple[QMainWindow, StatusBar]:
    window = QMainWindow()
    qtbot.addWidget(window)
    status = StatusBar(api, window, search=lambda: INDEXING)  # type: ignore[arg-type]
    window.setStatusBar(status)
    window.resize(width, 300)
    window.show()
    qtbot.waitExposed(window)
    status.set_scope_text("billing-api: 10,187 memories")
    return window, status


def overlap(a: QWidget, b: QWidget) -> bool:
    return a.isVisible() and b.isVisible() and a.geometry().intersects(b.geometry())


def test_a_message_never_covers_the_indexing_nor_the_scope_count(qtbot: QtBot) -> None:
    _window, status = status_in_window(
        qtbot, FakeApi(clients=2, action="claude-code: memory.search")
    )
    status.say(SAVED)
    qtbot.waitUntil(lambda: status.message_label.isVisible())
    status.show_progress("Removing", 500, 10_187)
    assert status.search_label.isVisible()  # not hidden by the message
    assert status.scope_label.isVisible()
    label = status.scope_label
    assert label.width() >= label.fontMetrics().horizontalAdvance(label.text())  # never cut
    sections = (
        status.scope_label,
        status.search_label,
        status.progress_bar,
        status.cancel_button,
        status.message_label,
        status.api_label,
    )
    for i, a in enumerate(sections):
        for b in sections[i + 1 :]:
            assert not overlap(a, b), (a, b)
    assert status.currentMessage() == SAVED
    assert status.message_label.toolTip() == SAVED  # the whole text, however it is cut


def test_an_api_message_goes_when_the_api_moves_on(qtbot: QtBot) -> None:
    api = FakeApi(endpoint=None)
    _window, status = status_in_window(qtbot, api, width=1280)
    status.say("Starting the agent API…", about_api=True)
    api.endpoint = "unix:/run/ltm.sock"
    status.on_poll_due()  # the next poll sees the API up: the message is stale
    assert status.currentMessage() == ""
    status.say("Saved.")
    api.clients = 3
    status.on_poll_due()
    assert status.currentMessage() == "Saved."  # a message of the app's own stays

"""The conflict banner gets the editor's width: its text wraps across it and its buttons
show whole, at 1280 and at 800 px."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from ltm_desktop.core.service import MemoryService
from tests.gui.conftest import WindowFactory
from tests.gui.test_layout import fill_titled, sized


@pytest.mark.parametrize("width", [1280, 800])
def test_the_conflict_banner_wraps_at_the_editor_s_width(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, width: int
) -> None:
    window = make_window(service, scope=fill_titled(service))
    sized(qtbot, window, width, 800)
    first = window.table.model.row_at(0).id
    window.table.select_memory(first)
    qtbot.waitUntil(lambda: window.editor.memory_id == first)
    editor = window.editor
    memory = editor.base
    assert memory is not None
    editor._offer_choice(memory, "codex")  # what an agent's change under unsaved edits shows
    banner = editor.banner
    qtbot.waitUntil(banner.isVisible)
    qtbot.waitUntil(lambda: banner.label.width() >= banner.contentsRect().width() - 30)
    assert banner.width() >= editor.width() - 30  # the banner spans the editor
    for button in banner.buttons:
        qtbot.waitUntil(button.isVisible)
        assert button.width() >= button.sizeHint().width(), button.text()
        right = button.mapTo(banner, button.rect().topRight()).x()
        assert right <= banner.width(), (button.text(), right, banner.width())

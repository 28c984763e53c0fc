"""History's revert: the button's label says what it does, and does it."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from ltm_desktop.core.service import MemoryService
from tests.gui.conftest import WindowFactory, add
from tests.gui.memory_list.test_list_keys import select_row


def test_revert_to_this_version_makes_the_memory_as_it_was_after_that_change(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    memory = add(service, billing, "Old text of the note")
    service.update(memory.id, {"content": "New text of the note"}, "agent")
    service.update(memory.id, {"importance": 5}, "agent")
    window = make_window(service, scope=billing)
    history = window.history
    window.details.setCurrentWidget(history)
    qtbot.waitUntil(lambda: window.table.select_memory(memory.id))
    qtbot.waitUntil(lambda: history.model.rowCount() == 3)
    assert not history.version_button.isEnabled()  # the newest: that is the memory now
    select_row(history.view, 1)  # the content's change
    assert history.version_button.text() == "Revert to this version"
    assert history.version_button.isEnabled()
    history.version_button.click()
    qtbot.waitUntil(lambda: service.get(memory.id).importance == 0)
    assert service.get(memory.id).content == "New text of the note"  # kept: it is this version


def test_revert_this_change_puts_back_only_the_fields_it_set(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    memory = add(service, billing, "Old text of the note")
    service.update(memory.id, {"content": "New text of the note"}, "agent")
    service.update(memory.id, {"importance": 5}, "agent")
    window = make_window(service, scope=billing)
    history = window.history
    window.details.setCurrentWidget(history)
    qtbot.waitUntil(lambda: window.table.select_memory(memory.id))
    qtbot.waitUntil(lambda: history.model.rowCount() == 3)
    select_row(history.view, 1)
    assert history.revert_button.text() == "Revert this change"
    history.revert_button.click()
    qtbot.waitUntil(lambda: service.get(memory.id).content == "Old text of the note")
    assert service.get(memory.id).importance == 5

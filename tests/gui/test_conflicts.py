"""Every GUI write names the version the person saw: an agent's later change is never
overwritten by an undo, a revert, a restore or a stale-list action; the person chooses."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QItemSelectionModel
from pytestqt.qtbot import QtBot

from ltm_desktop.core.records import AuditAction, Memory
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui import actions
from ltm_desktop.gui.window.main_window import TAB_HISTORY, TAB_STALE, TAB_TRASH, MainWindow
from tests.conftest import FakeClock
from tests.gui.conftest import WindowFactory, add, conflict_dialog, wait_idle

AGENT = "claude-code"


def select_first_row(view: object) -> None:
    flags = QItemSelectionModel.SelectionFlag
    view.selectionModel().select(view.model().index(0, 0), flags.ClearAndSelect | flags.Rows)  # type: ignore[attr-defined]


def stale_window(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, memory: Memory
) -> MainWindow:
    window = make_window(service, scope=memory.project_id)
    window.center.setCurrentIndex(TAB_STALE)
    qtbot.waitUntil(lambda: window.stale.model.row_of(memory.id) >= 0)
    select_first_row(window.stale.view)
    return window


def trail(service: MemoryService, memory_id: str) -> list[tuple[str, AuditAction]]:
    return [(e.actor, e.action) for e in service.history.memory(memory_id)]


def test_undo_of_an_importance_change_after_an_agent_edit_asks_instead_of_overwriting(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str, clock: FakeClock
) -> None:
    memory = add(service, billing, "The old staging box is called bertha", importance=1)
    clock.advance(days=61)
    window = stale_window(qtbot, make_window, service, memory)
    window.stale.importance.setValue(8)
    window.stale.raise_button.click()
    qtbot.waitUntil(lambda: window.ctx.undo.top_label().startswith("Importance"))
    assert service.get(memory.id).importance == 8
    # the agent changes the memory (any field) after the person's change
    service.update(memory.id, {"content": "The staging box is now called bruno"}, AGENT)

    window.menu_actions.undo.trigger()
    dialog = conflict_dialog(qtbot, window)
    stored = service.get(memory.id)
    assert (stored.importance, stored.content) == (8, "The staging box is now called bruno")
    assert trail(service, memory.id)[-1] == (AGENT, AuditAction.UPDATED)  # no undo written
    assert f"{AGENT} changed it" in dialog.message.text()
    dialog.compare_button.click()
    compared = dialog.compare_view.toPlainText()
    assert "importance\n8 → 1" in compared  # what the undo wanted, against what is stored
    assert f"Updated by {AGENT}" in compared  # what happened meanwhile
    assert dialog.overwrite_button.isEnabled()

    dialog.overwrite_button.click()  # the person decides: undo it anyway
    qtbot.waitUntil(lambda: service.get(memory.id).importance == 1)
    assert service.get(memory.id).content == "The staging box is now called bruno"  # theirs kept
    wait_idle(qtbot, window)
    assert trail(service, memory.id)[-1] == ("gui", AuditAction.UPDATED)
    assert not window.memory_actions.conflicts.open_dialogs()


def test_revert_to_a_version_after_an_agent_edit_is_a_conflict(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    memory = add(service, billing, "The API listens on port 8000", title="API port")
    service.update(memory.id, {"content": "The API listens on port 9000"}, AGENT)
    window = make_window(service, scope=billing)
    window.details.setCurrentIndex(TAB_HISTORY)
    qtbot.waitUntil(lambda: window.table.select_memory(memory.id))
    history = window.history
    qtbot.waitUntil(lambda: history.model.rowCount() == 2 and history.revert_button.isEnabled())
    window.ctx.bridge.stop()  # the window has not heard of the next change yet
    service.update(memory.id, {"content": "The API listens on port 9100"}, "other-agent")

    history.revert_button.click()
    dialog = conflict_dialog(qtbot, window)
    assert "other-agent changed it" in dialog.message.text()
    assert service.get(memory.id).content == "The API listens on port 9100"
    dialog.reload_button.click()  # drop the revert; show what is stored and what happened
    qtbot.waitUntil(lambda: history.model.rowCount() == 3)
    qtbot.waitUntil(lambda: "9100" in window.editor.form.content.toPlainText())
    assert service.get(memory.id).content == "The API listens on port 9100"
    assert window.ctx.undo.top_label() == ""  # nothing was done, so nothing to undo


def test_undo_of_a_revert_after_an_agent_edit_is_a_conflict(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    memory = add(service, billing, "Retries back off for ten seconds", importance=5)
    service.update(memory.id, {"importance": 9}, AGENT)
    window = make_window(service, scope=billing)
    window.details.setCurrentIndex(TAB_HISTORY)
    qtbot.waitUntil(lambda: window.table.select_memory(memory.id))
    qtbot.waitUntil(lambda: window.history.revert_button.isEnabled())
    window.history.revert_button.click()
    qtbot.waitUntil(lambda: window.ctx.undo.top_label().startswith("Revert importance"))
    assert service.get(memory.id).importance == 5
    service.update(memory.id, {"importance": 6}, AGENT)

    window.menu_actions.undo.trigger()
    dialog = conflict_dialog(qtbot, window)
    assert service.get(memory.id).importance == 6
    dialog.cancel_button.click()
    wait_idle(qtbot, window)
    assert service.get(memory.id).importance == 6
    assert trail(service, memory.id)[-1] == (AGENT, AuditAction.UPDATED)


def test_restoring_from_the_trash_a_memory_changed_meanwhile_asks(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    memory = add(service, billing, "Old deploy notes")
    service.remove(memory.id, AGENT)
    window = make_window(service, scope=billing)
    window.center.setCurrentIndex(TAB_TRASH)
    qtbot.waitUntil(lambda: window.trash.model.rowCount() == 1)
    window.ctx.bridge.stop()
    service.restore(memory.id, AGENT)
    service.update(memory.id, {"content": "Deploy notes, rewritten"}, AGENT)
    service.remove(memory.id, AGENT)  # back in the Trash, but not as the person saw it

    select_first_row(window.trash.view)
    window.trash.restore_button.click()
    dialog = conflict_dialog(qtbot, window)
    assert service.get(memory.id).disabled
    dialog.overwrite_button.click()
    qtbot.waitUntil(lambda: not service.get(memory.id).disabled)
    assert service.get(memory.id).content == "Deploy notes, rewritten"
    qtbot.waitUntil(lambda: window.ctx.undo.top_label().startswith("Restore"))


def test_stale_remove_and_keep_ask_when_an_agent_refreshed_the_memory(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str, clock: FakeClock
) -> None:
    memory = add(service, billing, "A note that looked forgotten", importance=0)
    clock.advance(days=61)
    window = stale_window(qtbot, make_window, service, memory)
    window.ctx.bridge.stop()
    service.update(memory.id, {"content": "A note an agent just rewrote"}, AGENT)

    window.stale.remove_button.click()
    conflict_dialog(qtbot, window).cancel_button.click()
    wait_idle(qtbot, window)
    assert not service.get(memory.id).disabled

    window.stale.keep_button.click()
    dialog = conflict_dialog(qtbot, window)
    assert service.get(memory.id).reviewed_at is None
    dialog.overwrite_button.click()
    qtbot.waitUntil(lambda: service.get(memory.id).reviewed_at is not None)


def test_deleting_a_row_the_list_shows_in_an_old_version_asks(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    memory = add(service, billing, "Shown in the list before the agent edit")
    window = make_window(service, scope=billing)
    qtbot.waitUntil(lambda: window.table.select_memory(memory.id))
    window.ctx.bridge.stop()
    service.update(memory.id, {"importance": 9}, AGENT)
    window.table.list_view.setFocus()
    window.menu_actions.delete.trigger()
    dialog = conflict_dialog(qtbot, window)
    assert not service.get(memory.id).disabled
    dialog.overwrite_button.click()
    qtbot.waitUntil(lambda: service.get(memory.id).disabled)


def test_the_persons_own_changes_never_conflict_with_their_next_action(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str, clock: FakeClock
) -> None:
    memory = add(service, billing, "Rarely used runbook", importance=0)
    clock.advance(days=61)
    window = stale_window(qtbot, make_window, service, memory)
    window.ctx.bridge.stop()  # so the list keeps showing the version before my changes
    for importance in (2, 3):  # the second one acts on a row that still shows importance 0
        window.stale.importance.setValue(importance)
        window.stale.raise_button.click()
        wait_idle(qtbot, window)
    assert service.get(memory.id).importance == 3
    window.menu_actions.undo.trigger()
    wait_idle(qtbot, window)
    window.menu_actions.undo.trigger()
    wait_idle(qtbot, window)
    assert service.get(memory.id).importance == 0
    window.stale.remove_button.click()  # the row still shows the very first version
    qtbot.waitUntil(lambda: service.get(memory.id).disabled)
    assert not window.memory_actions.conflicts.open_dialogs()
    assert [a for _, a in trail(service, memory.id)].count(AuditAction.UPDATED) == 4


def test_a_bulk_action_asks_once_for_every_memory_that_changed(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    memories = [
        add(service, billing, f"{word} fact about invoices") for word in ("First", "Second")
    ]
    untouched = add(service, billing, "Third fact about invoices, nobody changes it")
    window = make_window(service, scope=billing)
    qtbot.waitUntil(lambda: window.table.model.rowCount() == 3)
    window.table.list_view.selectAll()
    assert len(window.table.selected_versions()) == 3
    window.ctx.bridge.stop()
    for memory in memories:
        service.update(memory.id, {"importance": 9}, AGENT)
    window.table.list_view.setFocus()
    window.menu_actions.delete.trigger()
    dialog = conflict_dialog(qtbot, window)
    assert "for 2 memories" in dialog.message.text()
    assert service.get(untouched.id).disabled  # the unchanged one was removed at once
    assert not any(service.get(m.id).disabled for m in memories)
    dialog.overwrite_button.click()
    qtbot.waitUntil(lambda: all(service.get(m.id).disabled for m in memories))


def test_the_versions_of_our_own_writes_are_remembered_within_a_bound(
    make_window: WindowFactory, service: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One entry per write for the whole session grew without end; the oldest go first
    (a write from a view that old is then refused as a conflict, never lost)."""
    monkeypatch.setattr(actions, "KNOWN_WRITES", 3)
    memory_actions = make_window(service).memory_actions
    for version in range(1, 6):  # our writes made version 1 into 2, 2 into 3, ... 5 into 6
        memory_actions.note_written("mem_1", float(version), float(version + 1))
    assert memory_actions.latest("mem_1", 3.0) == 6.0  # the newest three are followed
    assert memory_actions.latest("mem_1", 1.0) == 1.0  # 1 -> 2 and 2 -> 3 are forgotten

"""Soft delete to the Trash, restore from it, and undo of delete, edit and restore."""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel
from pytestqt.qtbot import QtBot

from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.window.main_window import TAB_MEMORIES, TAB_TRASH, MainWindow
from tests.gui.conftest import WindowFactory, add, conflict_dialog, wait_idle


def select_rows(window: MainWindow, ids: list[str]) -> None:
    view, model = window.table.list_view, window.table.model
    flags = QItemSelectionModel.SelectionFlag
    view.selectionModel().clearSelection()
    for memory_id in ids:
        row = model.row_of(memory_id)
        assert row >= 0
        view.selectionModel().select(model.index(row, 0), flags.Select | flags.Rows)
    view.setFocus()  # as when the person clicked the rows


def active_ids(service: MemoryService, project_id: str) -> set[str]:
    return {m.id for m in service.list_memories(project_id)}


def test_delete_trash_restore(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    keep = add(service, billing, "Keep this one about billing cycles")
    gone = [add(service, billing, f"{word} is a memory to remove") for word in ("Alpha", "Bravo")]
    window = make_window(service, scope=billing)
    select_rows(window, [m.id for m in gone])
    assert sorted(window.table.selected_ids()) == sorted(m.id for m in gone)
    window.menu_actions.delete.trigger()
    qtbot.waitUntil(lambda: active_ids(service, billing) == {keep.id})
    qtbot.waitUntil(lambda: window.table.model.rowCount() == 1)

    window.center.setCurrentIndex(TAB_TRASH)
    trash = window.trash
    qtbot.waitUntil(lambda: trash.model.rowCount() == 2)
    assert {r.why for r in trash.model.rows()} == {"Removed"}
    assert {r.actor for r in trash.model.rows()} == {"gui"}
    flags = QItemSelectionModel.SelectionFlag
    trash.view.selectionModel().select(trash.model.index(0, 0), flags.Select | flags.Rows)
    restored_id = trash.selected_ids()[0]
    window.menu_actions.restore.trigger()
    qtbot.waitUntil(lambda: restored_id in active_ids(service, billing))
    qtbot.waitUntil(lambda: trash.model.rowCount() == 1)
    window.center.setCurrentIndex(TAB_MEMORIES)
    qtbot.waitUntil(lambda: window.table.model.rowCount() == 2)


def test_trash_explains_superseded_memories(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    add(
        service,
        billing,
        "The nightly backup job runs at two in the morning on the primary database",
    )
    add(
        service,
        billing,
        "The nightly backup job runs at two in the morning on the primary database server",
        title="Backups",
    )
    window = make_window(service, scope=billing)
    window.center.setCurrentIndex(TAB_TRASH)
    qtbot.waitUntil(lambda: window.trash.model.rowCount() == 1)
    assert window.trash.model.rows()[0].why == "Superseded by “Backups”"


def test_undo_delete_edit_and_restore(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    memory = add(service, billing, "Webhooks are retried three times", importance=4)
    window = make_window(service, scope=billing)
    qtbot.waitUntil(lambda: window.table.model.row_of(memory.id) >= 0)

    select_rows(window, [memory.id])
    window.menu_actions.delete.trigger()
    qtbot.waitUntil(window.menu_actions.undo.isEnabled)
    assert service.get(memory.id).disabled
    window.menu_actions.undo.trigger()
    qtbot.waitUntil(lambda: not service.get(memory.id).disabled)

    qtbot.waitUntil(lambda: window.table.select_memory(memory.id))
    qtbot.waitUntil(lambda: window.editor.memory_id == memory.id)
    # the editor must have caught up with the restore, or saving is (rightly) a conflict
    qtbot.waitUntil(lambda: window.editor.base is not None and not window.editor.base.disabled)
    window.editor.form.importance.setValue(9)
    window.editor.save()
    qtbot.waitUntil(lambda: window.ctx.undo.top_label().startswith("Edit"))
    assert service.get(memory.id).importance == 9
    window.menu_actions.undo.trigger()
    qtbot.waitUntil(lambda: service.get(memory.id).importance == 4)
    qtbot.waitUntil(lambda: window.editor.form.importance.value() == 4)  # the editor follows

    removed = service.remove(memory.id, "agent")
    window.memory_actions.restore({memory.id: removed.updated_at})
    qtbot.waitUntil(lambda: window.ctx.undo.top_label().startswith("Restore"))
    assert not service.get(memory.id).disabled
    window.menu_actions.undo.trigger()
    qtbot.waitUntil(lambda: service.get(memory.id).disabled)


def test_delete_in_the_editor_does_not_remove_the_selected_memory(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    memory = add(service, billing, "Keep me while I edit", importance=4)
    window = make_window(service, scope=billing)
    qtbot.waitUntil(lambda: window.table.select_memory(memory.id))
    qtbot.waitUntil(lambda: window.editor.memory_id == memory.id)
    window.editor.form.category.setFocus()  # Delete pressed while editing
    window.menu_actions.delete.trigger()
    wait_idle(qtbot, window)
    assert not service.get(memory.id).disabled


def test_opening_a_trashed_memory_does_not_hijack_a_later_selection(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    kept = add(service, billing, "A memory the person works on", importance=5)
    trashed = add(service, billing, "A memory in the trash", importance=4)
    service.remove(trashed.id, "agent")
    window = make_window(service, scope=billing)
    window.open_memory(trashed.id)  # e.g. clicked in the Trash tab
    qtbot.waitUntil(lambda: window.editor.memory_id == trashed.id)
    qtbot.waitUntil(lambda: window.table.model.row_of(kept.id) >= 0)
    view = window.table.list_view  # a click on the row (not select_memory)
    flags = QItemSelectionModel.SelectionFlag
    view.selectionModel().setCurrentIndex(
        window.table.model.index(window.table.model.row_of(kept.id), 0),
        flags.ClearAndSelect | flags.Rows,
    )
    qtbot.waitUntil(lambda: window.editor.memory_id == kept.id)
    service.restore(trashed.id, "agent")  # it comes back into the list later
    qtbot.waitUntil(lambda: window.table.model.row_of(trashed.id) >= 0)
    wait_idle(qtbot, window)
    assert window.table.current_id() == kept.id
    assert window.editor.memory_id == kept.id
    assert window.ctx.prompter.asked == []  # type: ignore[attr-defined]


def test_undo_never_overwrites_a_later_change_by_an_agent(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    memory = add(service, billing, "Cache entries live for five minutes", importance=4)
    window = make_window(service, scope=billing)
    qtbot.waitUntil(lambda: window.table.select_memory(memory.id))
    qtbot.waitUntil(lambda: window.editor.memory_id == memory.id)
    window.editor.form.importance.setValue(7)
    window.editor.save()
    qtbot.waitUntil(lambda: window.ctx.undo.top_label().startswith("Edit"))
    service.update(memory.id, {"importance": 9}, "claude-code")  # the agent changes it again
    window.menu_actions.undo.trigger()
    dialog = conflict_dialog(qtbot, window)
    assert "claude-code changed it" in dialog.message.text()
    assert service.get(memory.id).importance == 9  # the agent's value stays
    dialog.reload_button.click()
    wait_idle(qtbot, window)
    assert service.get(memory.id).importance == 9
    qtbot.waitUntil(lambda: window.editor.form.importance.value() == 9)

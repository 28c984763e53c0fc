"""Bulk curation: set fields on the selection, move or copy it to another scope, undo as one."""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel
from PySide6.QtWidgets import QDialogButtonBox, QWidget
from pytestqt.qtbot import QtBot

from ltm_desktop.core.records import GLOBAL_PROJECT_ID
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.window.main_window import MainWindow
from tests.gui.conftest import WindowFactory, add


def select(qtbot: QtBot, window: MainWindow, ids: list[str]) -> None:
    view, model = window.table.list_view, window.table.model
    qtbot.waitUntil(lambda: all(model.row_of(i) >= 0 for i in ids))
    flags = QItemSelectionModel.SelectionFlag
    view.selectionModel().clearSelection()
    for memory_id in ids:
        view.selectionModel().select(
            model.index(model.row_of(memory_id), 0), flags.Select | flags.Rows
        )
    qtbot.waitUntil(lambda: sorted(window.table.selected_ids()) == sorted(ids))


def ok(dialog: object) -> None:
    dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()  # type: ignore[attr-defined]


def test_set_fields_on_the_selection_and_undo_in_one_step(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    one = add(service, billing, "Builds use make", importance=2, tags=["build"])
    two = add(service, billing, "Deploys use the release workflow", importance=4)
    add(service, billing, "Not selected", importance=3)
    window = make_window(service, scope=billing)
    select(qtbot, window, [one.id, two.id])
    dialog = window.bulk.edit_selected()
    assert dialog is not None
    dialog.ticks["importance"].setChecked(True)
    dialog.importance.setValue(9)
    dialog.ticks["tags"].setChecked(True)
    dialog.tags.setText("ops, ci")
    dialog.ticks["category"].setChecked(True)
    dialog.category.setCurrentIndex(dialog.category.findData("skill"))
    ok(dialog)
    # each memory is its own write (one undo step for all): wait for both
    qtbot.waitUntil(lambda: all(service.get(i).importance == 9 for i in (one.id, two.id)))
    for memory_id in (one.id, two.id):
        stored = service.get(memory_id)
        assert (stored.importance, stored.tags, str(stored.category)) == (9, ("ops", "ci"), "skill")
    qtbot.waitUntil(lambda: window.ctx.undo.top_label().startswith("Set category"))
    window.menu_actions.undo.trigger()  # one Ctrl+Z for both
    qtbot.waitUntil(lambda: service.get(one.id).importance == 2)
    qtbot.waitUntil(lambda: service.get(two.id).importance == 4)
    assert service.get(one.id).tags == ("build",)


def test_move_to_global_with_dedup_and_undo(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    prefer = add(service, billing, "Prefer uv over pip")
    dup = add(service, billing, "Tabs are four spaces")
    already = add(service, GLOBAL_PROJECT_ID, "Tabs are four spaces")
    window = make_window(service, scope=billing)
    select(qtbot, window, [prefer.id, dup.id])
    window.menu_actions.move_to.trigger()
    dialog = window.bulk.dialog
    assert dialog is not None
    assert dialog.scope.itemData(0) == GLOBAL_PROJECT_ID  # type: ignore[attr-defined]
    ok(dialog)
    qtbot.waitUntil(lambda: service.list_memories(billing) == [])
    contents = sorted(m.content for m in service.list_memories(GLOBAL_PROJECT_ID))
    assert contents == ["Prefer uv over pip", "Tabs are four spaces"]  # not twice
    assert service.history.memory(prefer.id)[-1].action == "moved"
    qtbot.waitUntil(lambda: "already there" in window.status.currentMessage())
    assert window.ctx.undo.top_label().startswith("Move 2 memories to Global")
    window.menu_actions.undo.trigger()
    qtbot.waitUntil(lambda: len(service.list_memories(billing)) == 2)
    assert [m.id for m in service.list_memories(GLOBAL_PROJECT_ID)] == [already.id]


def test_copy_to_another_project(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    shop = service.resolve_scope(cwd="/home/dev/src/shop", register=True)
    add(service, shop, "Shop fact")
    fact = add(service, billing, "Postgres runs on port 5433")
    window = make_window(service, scope=billing)
    qtbot.waitUntil(lambda: window.projects.model.row_of(shop) >= 0)
    select(qtbot, window, [fact.id])
    dialog = window.bulk.transfer_selected(copy=True)
    assert dialog is not None
    dialog.scope.setCurrentIndex(dialog.scope.findData(shop))
    ok(dialog)
    qtbot.waitUntil(lambda: len(service.list_memories(shop)) == 2)
    assert not service.get(fact.id).disabled
    assert service.history.memory(fact.id)[-1].action == "copied"


def test_set_fields_tab_order_follows_the_rows_and_tags_can_be_added_or_removed(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    one = add(service, billing, "Builds use make", tags=["build", "old"])
    two = add(service, billing, "Deploys use the release workflow", tags=["deploy"])
    window = make_window(service, scope=billing)
    select(qtbot, window, [one.id, two.id])
    dialog = window.bulk.edit_selected()
    assert dialog is not None
    rows = [w for pair in dialog.rows() for w in pair]  # tick, field; top to bottom
    chain: list[QWidget] = []
    widget: QWidget | None = rows[0]
    for _ in range(40):
        assert widget is not None
        if widget in rows and widget not in chain:
            chain.append(widget)
        widget = widget.nextInFocusChain()
    assert chain == rows
    assert "replaces their tags" in dialog.ticks["tags"].text()  # not in a placeholder
    dialog.ticks["add_tags"].setChecked(True)
    dialog.add_tags.setText("urgent")
    dialog.ticks["remove_tags"].setChecked(True)
    dialog.remove_tags.setText("old")
    dialog.ticks["tags"].setChecked(True)  # replacing unticks adding and removing
    assert not dialog.ticks["add_tags"].isChecked()
    dialog.ticks["add_tags"].setChecked(True)
    assert not dialog.ticks["tags"].isChecked()
    dialog.ticks["remove_tags"].setChecked(True)
    ok(dialog)
    qtbot.waitUntil(lambda: service.get(two.id).tags == ("deploy", "urgent"))
    qtbot.waitUntil(lambda: service.get(one.id).tags == ("build", "urgent"))
    qtbot.waitUntil(lambda: window.ctx.undo.top_label().startswith("Add tags"))
    window.menu_actions.undo.trigger()
    qtbot.waitUntil(lambda: service.get(one.id).tags == ("build", "old"))
    assert service.get(two.id).tags == ("deploy",)

"""The Trash's Erase permanently and Empty trash (asked first), and the warning bar when
the database fails its quick check at start."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from PySide6.QtCore import QItemSelectionModel
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from ltm_desktop.core.errors import NotFound
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.config import Settings
from ltm_desktop.gui.window.main_window import TAB_TRASH, MainWindow
from tests.conftest import ServiceFactory
from tests.gui.conftest import WindowFactory, add


def gone(service: MemoryService, memory_id: str) -> bool:
    try:
        service.get(memory_id)
    except NotFound:
        return True
    return False


def open_trash(qtbot: QtBot, window: MainWindow, rows: int) -> None:
    window.center.setCurrentIndex(TAB_TRASH)
    qtbot.waitUntil(lambda: window.trash.model.rowCount() == rows)


def answer(qtbot: QtBot, window: MainWindow, erase: bool) -> None:
    controls = window.trash.erase
    qtbot.waitUntil(lambda: controls.confirmation is not None)
    box = controls.confirmation
    assert box is not None
    assert "no undo" in box.informativeText()
    if erase:
        button = next(b for b in box.buttons() if b.text() == "Erase permanently")
    else:
        button = box.button(QMessageBox.StandardButton.Cancel)
    button.click()


def test_erase_permanently_asks_then_erases_the_selection(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    first = add(service, billing, "Old staging host was vm-12")
    second = add(service, billing, "The legacy admin lived at /admin-old")
    for memory in (first, second):
        service.remove(memory.id, "gui")
    window = make_window(service, scope=billing)
    open_trash(qtbot, window, 2)
    trash = window.trash
    assert not trash.erase.erase_button.isEnabled()
    flags = QItemSelectionModel.SelectionFlag
    trash.view.selectionModel().select(trash.model.index(0, 0), flags.Select | flags.Rows)
    chosen = trash.selected_ids()[0]
    assert trash.erase.erase_button.isEnabled()
    trash.erase.erase_button.click()
    answer(qtbot, window, erase=False)
    assert not gone(service, chosen)
    trash.erase.erase_button.click()
    answer(qtbot, window, erase=True)
    qtbot.waitUntil(lambda: gone(service, chosen))
    qtbot.waitUntil(lambda: trash.model.rowCount() == 1)
    trash.erase.empty_button.click()
    answer(qtbot, window, erase=True)
    qtbot.waitUntil(lambda: trash.model.rowCount() == 0)
    assert gone(service, first.id)
    assert gone(service, second.id)
    qtbot.waitUntil(lambda: not trash.erase.empty_button.isEnabled())  # an empty Trash
    service.remove(add(service, billing, "A third, removed by an agent").id, "agent")
    qtbot.waitUntil(lambda: trash.model.rowCount() == 1)
    assert trash.erase.empty_button.isEnabled()


@pytest.mark.parametrize("tampered", [False, True])
def test_a_failed_check_at_start_shows_a_warning(
    qtbot: QtBot,
    make_window: WindowFactory,
    make_service: ServiceFactory,
    tmp_path: Path,
    tampered: bool,
) -> None:
    data = tmp_path / "data"
    setup = make_service(data)
    add(setup, "global", "Deploys go out on Fridays")
    db = Path(setup.store.location)
    setup.close()
    if tampered:
        with sqlite3.connect(db) as conn:
            conn.execute("DROP TRIGGER audit_is_append_only_delete")
        conn.close()
    window = make_window(make_service(data))
    warning = window.integrity_warning
    qtbot.waitUntil(lambda: warning.found is not None)
    assert warning.isVisible() is tampered
    if tampered:
        assert "audit_is_append_only_delete is missing" in warning.label.text()


def test_saving_a_secret_in_the_editor_shows_the_core_s_message(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    key = "AKIAIOSFODNN7EXAMPLE"
    window = make_window(service, scope=billing)
    window.menu_actions.new_memory.trigger()
    window.editor.form.content.setPlainText(f"Uploads use\nthe key {key}")
    window.menu_actions.save.trigger()
    form = window.editor.form
    qtbot.waitUntil(lambda: bool(form.error_text("content")))
    shown = form.error_text("content")
    assert "content holds a secret (AWS Access Key) at line 2, column 9" in shown
    assert key not in shown
    assert service.count_memories(billing) == 0


def test_find_secrets_lists_where_and_opens_the_memory(
    qtbot: QtBot, make_window: WindowFactory, make_service: ServiceFactory, tmp_path: Path
) -> None:
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    data = tmp_path / "data"
    lax = make_service(data, Settings(privacy_secrets="allow"))  # written before the rule
    leaked = add(lax, "global", f"Push with\nGITHUB_TOKEN={token}", title="Pushing")
    add(lax, "global", "Deploys go out on Fridays")
    lax.close()
    window = make_window(make_service(data))
    window.find_secrets.action.trigger()
    dialog = window.find_secrets.dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: dialog.hits is not None)
    assert dialog.table.rowCount() == 1
    cells = [item.text() for c in range(4) if (item := dialog.table.item(0, c)) is not None]
    assert cells == ["Pushing", "Global", "content, line 2, column 14", "GitHub Token"]
    assert token not in dialog.summary.text()
    dialog.table.cellDoubleClicked.emit(0, 0)
    qtbot.waitUntil(lambda: window.editor.memory_id == leaked.id)
    dialog.close()

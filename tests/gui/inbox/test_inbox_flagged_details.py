"""A flagged memory in the Inbox says who wrote it and when, and shows its tags."""

from __future__ import annotations

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.inbox.edit import InboxEditDialog
from ltm_desktop.gui.models.inbox_model import COL_FROM, COL_WHEN
from tests.gui.conftest import WindowFactory, add
from tests.gui.inbox.test_inbox import open_inbox
from tests.gui.test_flagged import ORDER


def test_a_flagged_memory_names_its_writer_its_time_and_its_tags(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    add(service, billing, ORDER, actor="codex", title="Deploy policy", tags=("deploy", "prod"))
    window = make_window(service, scope=billing)
    open_inbox(qtbot, window, 1)
    model = window.inbox.model
    assert model.index(0, COL_FROM).data() == "codex"
    assert model.index(0, COL_WHEN).data() != "never"
    assert "never" not in model.index(0, COL_WHEN).data(Qt.ItemDataRole.ToolTipRole)
    assert "session" not in (model.index(0, COL_FROM).data(Qt.ItemDataRole.ToolTipRole) or "")
    window.inbox.select_row(0)
    details = window.inbox.details.toPlainText()
    assert "codex" in details
    assert "tags: deploy, prod" in details
    dialog = window.inbox.edit_selected()
    assert isinstance(dialog, InboxEditDialog)
    assert dialog.form.values().tags == ("deploy", "prod")
    dialog.close()

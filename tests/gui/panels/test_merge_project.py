"""The Projects list's "Merge into…": a question naming both projects, Cancel changes
nothing, Merge moves the memories (deduplicated, audited) and says so."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from ltm_desktop.core.service import MemoryService
from tests.gui.conftest import WindowFactory, add
from tests.gui.panels.test_panel_menus import trigger

pytestmark = pytest.mark.qt_log_ignore(
    "^This plugin does not support raise\\(\\)$",
    "^This plugin does not support grabbing the keyboard$",
)
WEB = "/home/dev/src/web-shop"


def test_merge_into_asks_then_merges(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    web = service.resolve_scope(cwd=WEB, register=True)
    add(service, billing, "Deploys go through the release branch")
    add(service, billing, "Invoices are numbered per year")
    add(service, web, "Deploys go through the release branch")
    window = make_window(service, scope=billing)
    projects = window.projects
    qtbot.waitUntil(lambda: projects.model.row_of(web) >= 0)
    projects.select(billing)
    merger = projects.merger

    trigger(window.context_menus.menu_for(projects.view), "Merge into…")
    dialog = merger.dialog
    assert dialog is not None
    assert "2 memories of “billing-api”" in dialog.question.text()
    assert [dialog.choice.itemData(i) for i in range(dialog.choice.count())] == [web]
    assert "no undo" in dialog.note.text()
    dialog.reject()  # Cancel
    assert merger.dialog is None
    assert len(service.list_memories(billing)) == 2

    trigger(window.context_menus.menu_for(projects.view), "Merge into…")
    dialog = merger.dialog
    assert dialog is not None
    with qtbot.waitSignal(merger.merged, timeout=5000):
        dialog.merge_button.click()
    assert service.list_memories(billing) == []
    assert sorted(m.content for m in service.list_memories(web)) == [
        "Deploys go through the release branch",
        "Invoices are numbered per year",
    ]
    qtbot.waitUntil(
        lambda: (
            window.status.message_label.text()
            == "Merged “billing-api” into “web-shop”: 2 memories moved, 1 already there."
        )
    )
    qtbot.waitUntil(lambda: window.ctx.scope.project_id == web)
    assert service.integrity.verify().problems == ()


def test_the_global_scope_offers_no_merge(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    add(service, billing, "Deploys go through the release branch")
    window = make_window(service)
    projects = window.projects
    qtbot.waitUntil(lambda: projects.model.row_of(billing) >= 0)
    projects.select(projects.model.all_projects()[0].project_id)  # global
    texts = [a.text() for a in window.context_menus.menu_for(projects.view).actions()]
    assert "Merge into…" not in texts

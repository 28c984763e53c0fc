"""The Projects list's "Make this folder its own project…": offered for a repository's
project with a folder on this machine; Cancel changes nothing; accepting pins the folder
to a project of its own (the repository's memories stay), and the list selects it."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from ltm_desktop.core.actors import ENV_MACHINE
from ltm_desktop.core.projects.identity import remote_project_id
from ltm_desktop.core.rules import project_id_for_cwd
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.config import Settings
from tests.conftest import ServiceFactory
from tests.gui.conftest import WindowFactory, add
from tests.gui.panels.test_panel_menus import trigger
from tests.unit.projects.gitrepos import clone_of

pytestmark = pytest.mark.qt_log_ignore(
    "^This plugin does not support raise\\(\\)$",
    "^This plugin does not support grabbing the keyboard$",
)
SHOP = remote_project_id("github.com/acme/shop")
ENTRY = "Make this folder its own project…"


def test_a_clone_is_detached_after_a_question(
    qtbot: QtBot,
    make_window: WindowFactory,
    make_service: ServiceFactory,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(ENV_MACHINE, "laptop")
    service = make_service(settings=Settings(projects_identity="remote"))
    clone = clone_of(tmp_path / "work" / "shop", "git@github.com:acme/shop.git")
    assert service.resolve_scope(cwd=str(clone), register=True) == SHOP
    add(service, SHOP, "Checkout uses Stripe")
    window = make_window(service, scope=SHOP)
    projects = window.projects
    qtbot.waitUntil(lambda: projects.model.row_of(SHOP) >= 0)
    projects.select(SHOP)
    detacher = projects.detacher

    trigger(window.context_menus.menu_for(projects.view), ENTRY)
    dialog = detacher.dialog
    assert dialog is not None
    assert str(clone) in dialog.question.text()
    dialog.reject()  # Cancel
    assert service.resolve_scope(cwd=str(clone)) == SHOP

    trigger(window.context_menus.menu_for(projects.view), ENTRY)
    dialog = detacher.dialog
    assert dialog is not None
    own = project_id_for_cwd(str(clone))
    with qtbot.waitSignal(detacher.detached, timeout=5000) as signal:
        dialog.detach_button.click()
    assert signal.args == [own]
    assert service.resolve_scope(cwd=str(clone)) == own  # pinned on this machine
    assert [m.content for m in service.list_memories(SHOP)] == ["Checkout uses Stripe"]
    qtbot.waitUntil(lambda: window.ctx.scope.project_id == own)
    qtbot.waitUntil(lambda: "its own project on this machine" in window.status.message_label.text())


def test_a_path_project_offers_no_detach(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    window = make_window(service, scope=billing)
    projects = window.projects
    qtbot.waitUntil(lambda: projects.model.row_of(billing) >= 0)
    projects.select(billing)
    texts = [a.text() for a in window.context_menus.menu_for(projects.view).actions()]
    assert "Merge into…" in texts  # the project's own entries are there
    assert ENTRY not in texts

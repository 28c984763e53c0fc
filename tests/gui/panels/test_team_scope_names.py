"""With a global scope per person (docs/teams.md) the app names the shared one "Team" and
the person's own "Global (you)", offers both as scopes, and moves a memory from the
team's to the person's with the existing Move to scope… (its row made, named for them)."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from ltm_desktop.core.actors import Identity, Machine, WhoAmI
from ltm_desktop.core.records import GLOBAL_PROJECT_ID
from ltm_desktop.core.settings.config import Settings
from tests.conftest import ServiceFactory
from tests.gui.conftest import WindowFactory, add
from tests.gui.memory_list.test_bulk_curation import ok, select

ANA = WhoAmI.fixed(Identity("ana@laptop", Machine("id-laptop", "laptop")))


def test_team_and_global_you_and_a_move_between_them(
    qtbot: QtBot, make_window: WindowFactory, make_service: ServiceFactory
) -> None:
    service = make_service(settings=Settings(people_global="personal"), identity=ANA)
    mine = service.ambient.personal
    tabs = add(service, GLOBAL_PROJECT_ID, "Ana prefers tabs")  # from before: the team's now
    window = make_window(service, scope=GLOBAL_PROJECT_ID)
    model = window.projects.model
    qtbot.waitUntil(lambda: model.row_of(mine) >= 0)
    shown = dict(model.scope_choices())
    assert shown[GLOBAL_PROJECT_ID] == "Team"
    assert shown[mine] == "Global (you)"  # listed before its first memory
    assert window.ctx.scope.name == "Team"

    select(qtbot, window, [tabs.id])
    dialog = window.bulk.transfer_selected(copy=False)
    assert dialog is not None
    dialog.scope.setCurrentIndex(dialog.scope.findData(mine))
    assert dialog.scope.currentText() == "Global (you)"
    ok(dialog)
    qtbot.waitUntil(lambda: [m.content for m in service.list_memories(mine)] == [tabs.content])
    assert service.list_memories(GLOBAL_PROJECT_ID) == []
    assert service.store.get_project(mine).name == "Global (ana@laptop)"
    assert service.history.memory(tabs.id)[-1].action == "moved"

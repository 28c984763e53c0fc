"""The app names who made each change on which machine: the Activity tab's Person and
Machine columns and its per-person filter, a memory's History, and the list's "New"
filter, which shows the machine beside the agent. Two people write to one store (two
services standing for two machines)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QAbstractItemModel
from pytestqt.qtbot import QtBot

from ltm_desktop.core.actors import Identity, Machine, WhoAmI
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.models.activity_model import COL_ACTOR, COL_MACHINE, COL_PERSON
from ltm_desktop.gui.models.history_model import COL_MACHINE as HISTORY_MACHINE
from ltm_desktop.gui.models.history_model import COL_PERSON as HISTORY_PERSON
from ltm_desktop.gui.models.history_model import HistoryModel
from ltm_desktop.gui.models.memory_model import COL_SOURCE
from ltm_desktop.gui.window.main_window import TAB_ACTIVITY
from tests.conftest import FakeClock, ServiceFactory
from tests.gui.conftest import BILLING, WindowFactory, add

ANA = WhoAmI.fixed(Identity("ana@laptop", Machine("id-laptop", "laptop")))
BEN = WhoAmI.fixed(Identity("ben@desktop", Machine("id-desktop", "desktop")))


def two_machines(
    make_service: ServiceFactory, tmp_path: Path
) -> tuple[MemoryService, MemoryService, str]:
    """Ana's service (the app's) and Ben's on one store, and the billing scope."""
    ana = make_service(tmp_path / "data", identity=ANA)
    ben = make_service(tmp_path / "data", identity=BEN)
    return ana, ben, ana.resolve_scope(cwd=BILLING, register=True)


def column(model: QAbstractItemModel, col: int) -> list[str]:
    return [str(model.index(row, col).data()) for row in range(model.rowCount())]


def test_the_activity_names_people_and_machines_and_filters_by_person(
    qtbot: QtBot, make_window: WindowFactory, make_service: ServiceFactory, tmp_path: Path
) -> None:
    ana, ben, billing = two_machines(make_service, tmp_path)
    add(ana, billing, "Invoices are numbered per year", actor="gui")
    add(ben, billing, "Refunds go through the Stripe dashboard", actor="codex")
    add(ben, billing, "The billing cron runs at 02:00 UTC", actor="claude-code")
    window = make_window(ana, scope=billing)
    window.center.setCurrentIndex(TAB_ACTIVITY)
    activity = window.activity
    model = activity.model
    qtbot.waitUntil(lambda: model.rowCount() == 3 and model.is_settled())
    assert column(model, COL_PERSON) == ["ben@desktop", "ben@desktop", "ana@laptop"]
    assert column(model, COL_MACHINE) == ["desktop", "desktop", "laptop"]
    qtbot.waitUntil(lambda: activity.person.findData("ben@desktop") > 0)
    assert activity.person.findData("ana@laptop") > 0
    activity.person.setCurrentIndex(activity.person.findData("ben@desktop"))
    qtbot.waitUntil(lambda: model.rowCount() == 2 and model.is_settled())
    assert column(model, COL_ACTOR) == ["claude-code", "codex"]
    activity.actor.setCurrentIndex(activity.actor.findData("codex"))  # both filters at once
    qtbot.waitUntil(lambda: model.rowCount() == 1 and model.is_settled())
    assert column(model, COL_MACHINE) == ["desktop"]
    activity.person.setCurrentIndex(activity.person.findData("ana@laptop"))
    qtbot.waitUntil(lambda: model.rowCount() == 0 and model.is_settled())
    activity.person.setCurrentIndex(0)  # every person
    activity.actor.setCurrentIndex(0)  # every agent
    qtbot.waitUntil(lambda: model.rowCount() == 3 and model.is_settled())


def test_a_memorys_history_names_the_person_and_machine(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    ana, ben, billing = two_machines(make_service, tmp_path)
    memory = add(ben, billing, "Refunds go through the Stripe dashboard", actor="codex")
    ana.update(memory.id, {"importance": 9}, "gui")
    model = HistoryModel()
    model.set_rows(ana.history.memory(memory.id))
    assert column(model, HISTORY_PERSON) == ["ben@desktop", "ana@laptop"]
    assert column(model, HISTORY_MACHINE) == ["desktop", "laptop"]


def test_the_new_filter_names_the_machine_beside_the_agent(
    qtbot: QtBot,
    make_window: WindowFactory,
    make_service: ServiceFactory,
    tmp_path: Path,
    clock: FakeClock,
) -> None:
    ana, ben, billing = two_machines(make_service, tmp_path)
    window = make_window(ana, scope=billing)  # the first look: a day back from now
    clock.advance(1)
    fresh = add(ben, billing, "Refunds go through the Stripe dashboard", actor="codex")
    table = window.table
    table.new_since.toggle.setChecked(True)
    qtbot.waitUntil(lambda: [r.id for r in table.model.rows()] == [fresh.id])
    source = table.model.index(0, COL_SOURCE)
    assert source.data() == "codex on desktop"
    assert "ben@desktop" in str(source.data(3))  # ToolTipRole
    table.new_since.toggle.setChecked(False)
    qtbot.waitUntil(lambda: table.model.rowCount() == 1 and not table.model.is_loading())
    assert table.model.index(0, COL_SOURCE).data() == "codex"

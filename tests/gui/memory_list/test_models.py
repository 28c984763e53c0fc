"""Every Qt model through qtmodeltester, and paging of a large table."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import pytest
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from ltm_desktop.core.records import GLOBAL_PROJECT_ID, MemoryDraft
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.models.activity_model import ActivityFetcher, ActivityModel
from ltm_desktop.gui.models.base import RowTableModel
from ltm_desktop.gui.models.history_model import HistoryModel
from ltm_desktop.gui.models.memory_model import COL_TITLE, MemoryQuery, MemoryTableModel
from ltm_desktop.gui.models.observation_model import ObservationModel
from ltm_desktop.gui.models.paged import PAGE_SIZE
from ltm_desktop.gui.models.precis_model import CandidateRow, PrecisCandidatesModel
from ltm_desktop.gui.models.projects_model import ProjectsModel, project_rows
from ltm_desktop.gui.models.search_model import SearchResultsModel
from ltm_desktop.gui.models.sparse import SparseTableModel
from ltm_desktop.gui.models.stale_model import StaleModel, stale_row
from ltm_desktop.gui.models.trash_model import TrashModel
from ltm_desktop.gui.panels.precis import load_precis
from ltm_desktop.gui.tasks import TaskRunner
from tests.conftest import FakeClock
from tests.gui.conftest import WindowFactory, add

TOPICS = (
    "Kubernetes rollout strategy uses surge",
    "Terraform state lives in S3",
    "Release tags come from main only",
    "Canary traffic starts at five percent",
    "Database migrations run before pods roll",
    "Secrets are read from Vault at boot",
    "Docker images are built with buildx",
    "Feature flags guard risky endpoints",
    "Rollback command is make rollback",
    "Smoke tests hit the health endpoint",
    "Grafana dashboards track latency",
    "Pager alerts route to the on-call",
)


def check(qtmodeltester: ModelTester, model: RowTableModel) -> None:
    """Qt's own QAbstractItemModelTester; it stays attached and checks every later change too
    (its findings are Qt warnings, which ``no_model_failures`` turns into test failures)."""
    assert model.rowCount() > 0, "test the model with data in it"
    qtmodeltester.check(model)


@pytest.fixture(autouse=True)
def no_model_failures(qtlog: Any) -> Iterator[None]:
    yield
    failures = [r.message for r in qtlog.records if "FAIL" in r.message]
    assert not failures


def settle(qtbot: QtBot, model: SparseTableModel) -> None:
    qtbot.waitUntil(model.is_settled, timeout=5000)


@pytest.fixture
def filled(service: MemoryService, billing: str) -> str:
    for i, topic in enumerate(TOPICS):
        add(service, billing, f"{topic} deploy pipeline note", importance=i % 11, tags=["deploy"])
    victim = add(service, billing, "Old note that was removed later on purpose")
    service.remove(victim.id, "agent")
    service.observations.record(
        billing, "agent_end", "sess-1", "agent", user_text="hi", assistant_text="hello there"
    )
    service.observations.record(
        billing, "pre_compact", "sess-2", "agent", messages_text="a long transcript"
    )
    return billing


def test_memory_model(
    qtbot: QtBot,
    qtmodeltester: ModelTester,
    service: MemoryService,
    filled: str,
    runner: TaskRunner,
) -> None:
    model = MemoryTableModel(service, runner)
    model.set_query(MemoryQuery(project_id=filled, include_disabled=True))
    settle(qtbot, model)
    check(qtmodeltester, model)
    model.sort(COL_TITLE)
    settle(qtbot, model)
    assert [r.title for r in model.rows()] == sorted((r.title for r in model.rows()), key=str.lower)
    removed = [r for r in model.rows() if r.disabled]
    assert len(removed) == 1
    assert "[removed]" in model.index(model.row_of(removed[0].id), 0).data()


def test_trash_model(
    qtbot: QtBot,
    qtmodeltester: ModelTester,
    service: MemoryService,
    filled: str,
    runner: TaskRunner,
) -> None:
    model = TrashModel(service, runner)
    model.set_project(filled)
    settle(qtbot, model)
    check(qtmodeltester, model)
    assert model.rows()[0].why == "Removed"
    assert model.rows()[0].actor == "agent"


def test_search_model(
    qtbot: QtBot,
    qtmodeltester: ModelTester,
    service: MemoryService,
    filled: str,
    runner: TaskRunner,
) -> None:
    model = SearchResultsModel(service, runner)
    with qtbot.waitSignal(model.searched):
        model.search(filled, "deploy terraform")
    check(qtmodeltester, model)
    with qtbot.waitSignal(model.searched):
        model.search(filled, "rollback")
    assert model.rowCount() > 0


def test_small_models(
    qtmodeltester: ModelTester, service: MemoryService, filled: str, clock: FakeClock
) -> None:
    projects = ProjectsModel()
    projects.set_projects(project_rows(service.projects()))
    check(qtmodeltester, projects)
    projects.set_filter("billing")
    assert [r.name for r in projects.rows()] == ["Global", "billing-api"]

    memory = service.list_memories(filled)[0]
    service.update(memory.id, {"importance": 9, "title": "Renamed"}, "gui")
    history = HistoryModel()
    history.set_rows(service.history.memory(memory.id))
    check(qtmodeltester, history)

    old = add(service, GLOBAL_PROJECT_ID, "Ancient trivia nobody needs", importance=0)
    clock.advance(days=61)
    stale = StaleModel()
    stale.set_rows(
        [stale_row(m, service.now(), 1) for m in service.stale.memories(GLOBAL_PROJECT_ID)]
    )
    check(qtmodeltester, stale)
    assert stale.rows()[0].id == old.id
    assert "never used" in stale.rows()[0].reason

    precis = PrecisCandidatesModel()
    precis.set_rows(
        [CandidateRow("a", 1, "A", 5, False, True), CandidateRow("b", 2, "B", 4, True, False)]
    )
    check(qtmodeltester, precis)
    precis.set_rows([CandidateRow("b", 1, "B", 6, True, True)])  # patched in place, tester attached
    assert precis.rowCount() == 1


def test_activity_and_observation_models(
    qtbot: QtBot,
    qtmodeltester: ModelTester,
    service: MemoryService,
    filled: str,
    runner: TaskRunner,
) -> None:
    activity = ActivityModel(service, runner)
    activity.set_filter(filled, None)
    settle(qtbot, activity)
    check(qtmodeltester, activity)
    activity.set_filter(filled, "nobody")
    settle(qtbot, activity)
    assert activity.rowCount() == 0

    observations = ObservationModel(service, runner)
    observations.set_filter(filled, None, "")
    settle(qtbot, observations)
    check(qtmodeltester, observations)
    assert observations.rows()[0].observation.kind.value == "pre_compact"  # newest first
    observations.set_filter(filled, "sess-1", "")
    settle(qtbot, observations)
    assert [r.observation.session_id for r in observations.rows()] == ["sess-1"]
    observations.set_filter(filled, None, "hello")
    settle(qtbot, observations)
    assert observations.rowCount() == 1


@pytest.mark.slow
def test_large_table_counts_every_row_and_reads_pages_on_demand(
    qtbot: QtBot,
    qtmodeltester: ModelTester,
    service: MemoryService,
    billing: str,
    runner: TaskRunner,
) -> None:
    drafts = [
        MemoryDraft(content=f"Generated memory {i} about component {i % 97}") for i in range(5_000)
    ]
    service.import_memories(billing, drafts, "bench")
    model = MemoryTableModel(service, runner)
    model.set_query(MemoryQuery(project_id=billing))
    settle(qtbot, model)
    assert model.rowCount() == model.total == 5_000  # the whole list, from the first answer
    assert len(model.rows()) == PAGE_SIZE  # but only the first page read
    check(qtmodeltester, model)
    settle(qtbot, model)
    for row in range(0, 5_000, PAGE_SIZE):
        model.index(row, COL_TITLE).data()  # what a paint there asks
    qtbot.waitUntil(lambda: model.is_settled() and model.row_at(4_999) is not None, timeout=10_000)
    assert len({r.id for r in model.rows()}) == len(model.rows()) <= 5_000


def test_refresh_patches_rows_in_place(
    qtbot: QtBot,
    qtmodeltester: ModelTester,
    service: MemoryService,
    filled: str,
    runner: TaskRunner,
) -> None:
    model = MemoryTableModel(service, runner)
    model.set_query(MemoryQuery(project_id=filled))
    settle(qtbot, model)
    check(qtmodeltester, model)
    resets: list[int] = []
    model.modelReset.connect(lambda: resets.append(1))
    top = model.rows()[0]
    add(service, filled, "A brand new top memory", importance=10)
    service.update(model.rows()[3].id, {"title": "Changed title"}, "agent")
    service.remove(model.rows()[5].id, "agent")
    model.refresh()
    settle(qtbot, model)
    titles = [r.title for r in model.rows()]
    assert titles[0] == "A brand new top memory"
    assert "Changed title" in titles
    assert model.row_of(top.id) == 1
    assert resets == []


def test_the_sort_arrow_stays_where_the_order_is(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    from PySide6.QtCore import Qt

    from ltm_desktop.gui.models.memory_model import COL_IMPORTANCE, COL_TAGS, COL_TITLE

    add(service, billing, "Some memory")
    window = make_window(service, scope=billing)
    header = window.table.list_view.horizontalHeader()
    header.setSortIndicator(COL_TAGS, Qt.SortOrder.AscendingOrder)  # tags cannot be sorted
    assert header.sortIndicatorSection() == COL_IMPORTANCE
    header.setSortIndicator(COL_TITLE, Qt.SortOrder.AscendingOrder)
    assert header.sortIndicatorSection() == COL_TITLE
    assert window.table.model.query.order_by == "title"


def test_activity_rows_name_the_memory_even_when_the_event_does_not(
    service: MemoryService, project: str
) -> None:
    memory = service.add(project, MemoryDraft("Deploys go out on Tuesdays"), "claude").memory
    service.update(memory.id, {"importance": 9}, "gui")
    service.remove(memory.id, "gui")
    fetcher = ActivityFetcher(service, project, None)
    rows, more = fetcher.page(0, 10, None)
    assert [r.event.action.value for r in rows] == ["removed", "updated", "created"]
    assert {r.title for r in rows} == {memory.title}
    assert not more


def test_precis_candidates_skip_memories_gone_since_the_precis_was_computed(
    service: MemoryService, project: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept = service.add(project, MemoryDraft("Use uv for installs", importance=8), "a").memory
    other = service.add(project, MemoryDraft("Ship on green CI only", importance=7), "a").memory
    real = service.precis(project)
    raced = dataclasses.replace(real, candidate_ids=(kept.id, "mem_gone", other.id))
    monkeypatch.setattr(service, "precis", lambda project_id: raced)
    _, rows = load_precis(service, project)
    assert [(r.id, r.rank, r.title) for r in rows] == [
        (kept.id, 1, kept.title),
        (other.id, 3, other.title),
    ]
    assert all(r.included for r in rows)

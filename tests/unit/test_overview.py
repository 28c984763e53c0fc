"""The Overview's series (core.overview) on small histories with known answers, on every
backend; days and weeks are local to the zone given (UTC unless the test says)."""

from __future__ import annotations

from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

import pytest

from ltm_desktop.core.memory_md.block import render_block
from ltm_desktop.core.memory_md.precis import TRUNCATION_MARK
from ltm_desktop.core.overview.cache import OverviewCache
from ltm_desktop.core.overview.figures import (
    CATEGORIES,
    DAYS,
    MIN_WEEKS,
    OTHERS,
    USE_LABELS,
    local_midnight,
    overview,
)
from ltm_desktop.core.records import GLOBAL_PROJECT_ID, GUI_ACTOR
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.config import Settings
from tests.conftest import START, FakeClock, ServiceFactory, make_draft

pytestmark = pytest.mark.every_backend

CWD = "/home/dev/src/billing-api"
DAY = 86_400.0
K, P, T, S = CATEGORIES  # knowledge, preference, task, skill


def at(text: str) -> float:
    """A UTC time: ``2027-01-15 08:00``."""
    return datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp()


def unique(n: int) -> str:
    """Text no other memory of the test resembles (no deduplication, no supersede)."""
    return " ".join(f"w{n}x{k}" for k in range(4))


def column(counts: tuple[tuple[int, ...], ...], i: int) -> list[int]:
    return [row[i] for row in counts]


@pytest.fixture
def stale_service(make_service: ServiceFactory) -> MemoryService:
    return make_service(settings=Settings(stale_age_days=7, stale_max_importance=1))


def test_a_new_scope_reads_as_empty(service: MemoryService, clock: FakeClock) -> None:
    scope = service.resolve_scope(cwd=CWD, register=True)
    found = overview(service, scope, clock.now, UTC)
    assert found.is_empty
    assert len(found.memories.weeks) == MIN_WEEKS
    assert all(n == 0 for row in found.memories.counts for n in row)
    assert len(found.writes.days) == DAYS
    assert found.writes.actors == ()
    assert found.budget is not None
    assert found.budget.used == 0
    assert overview(service, "proj_0123456789abcdef", clock.now, UTC).is_empty


def test_weeks_by_category_stale_and_removed(
    stale_service: MemoryService, clock: FakeClock
) -> None:
    """Sat 2026-12-26: a knowledge memory (importance 1, stale a week later); Sat 01-02:
    a preference and a task; Sat 01-09: the task and the stale one removed. Now: Fri
    2027-01-15, in the week of Monday 01-11."""
    service = stale_service
    scope = service.resolve_scope(cwd=CWD, register=True)
    clock.now = at("2026-12-26 08:00")
    old = service.add(scope, make_draft("Old fact", importance=1), "claude-code").memory
    clock.advance(days=7)
    service.add(scope, make_draft("Tabs over spaces", category="preference", importance=5), "codex")
    task = service.add(scope, make_draft("Ship it", category="task", importance=5), "codex").memory
    clock.advance(days=7)
    service.remove(task.id, GUI_ACTOR)
    service.remove(old.id, GUI_ACTOR)
    clock.advance(days=6)
    found = overview(service, scope, clock.now, UTC)

    weeks = found.memories.weeks
    assert [datetime.fromtimestamp(w, UTC).date().isoformat() for w in weeks] == [
        "2026-12-21",
        "2026-12-28",
        "2027-01-04",
        "2027-01-11",
    ]
    assert column(found.memories.counts, 0) == [1, 1, 0, 0]  # knowledge
    assert column(found.memories.counts, 1) == [0, 1, 1, 1]  # preference
    assert column(found.memories.counts, 2) == [0, 1, 0, 0]  # task
    assert column(found.memories.counts, 3) == [0, 0, 0, 0]  # skill
    assert found.stale_removed.weeks == weeks
    assert found.stale_removed.stale == (0, 1, 0, 0)
    assert found.stale_removed.removed == (0, 0, 2, 0)
    assert not found.is_empty


def test_stale_counts_only_while_not_removed(
    stale_service: MemoryService, clock: FakeClock
) -> None:
    service = stale_service
    scope = service.resolve_scope(cwd=CWD, register=True)
    clock.now = at("2026-12-26 08:00")
    service.add(scope, make_draft("Never read", importance=0), "codex")
    service.add(scope, make_draft("Important", importance=9), "codex")
    clock.now = at("2027-01-15 08:00")
    found = overview(service, scope, clock.now, UTC)
    assert found.stale_removed.stale == (0, 1, 1, 1)  # from Sat 01-02 on
    assert column(found.memories.counts, 0) == [2, 2, 2, 2]


def test_writes_per_day_by_actor(service: MemoryService, clock: FakeClock) -> None:
    scope = service.resolve_scope(cwd=CWD, register=True)
    clock.now = at("2027-01-13 10:00")
    first = service.add(scope, make_draft("One"), "claude-code").memory
    service.add(scope, make_draft("Two"), "codex")
    service.add(scope, make_draft("Three"), "codex")
    clock.now = at("2027-01-15 09:00")
    service.update(first.id, {"importance": 8}, GUI_ACTOR)
    found = overview(service, scope, clock.now, UTC).writes
    assert found.actors == ("codex", "claude-code", GUI_ACTOR)
    assert found.days[-1] == at("2027-01-15 00:00")
    assert found.counts[-3] == (2, 1, 0)  # Wednesday 01-13
    assert found.counts[-2] == (0, 0, 0)
    assert found.counts[-1] == (0, 0, 1)
    assert sum(map(sum, found.counts[:-3])) == 0


def test_actors_beyond_six_are_folded(service: MemoryService, clock: FakeClock) -> None:
    scope = service.resolve_scope(cwd=CWD, register=True)
    for i in range(8):
        for j in range(8 - i):
            service.add(scope, make_draft(unique(i * 10 + j)), f"agent-{i}")
    found = overview(service, scope, clock.now, UTC).writes
    assert found.actors == ("agent-0", "agent-1", "agent-2", "agent-3", "agent-4", OTHERS)
    assert found.counts[-1] == (8, 7, 6, 5, 4, 3 + 2 + 1)


@pytest.mark.parametrize(
    ("zone", "utc", "local_day"),
    [
        ("America/New_York", "2027-01-15 04:30", "2027-01-14"),  # 23:30 the day before
        ("America/New_York", "2027-01-15 05:30", "2027-01-15"),  # 00:30
        ("Asia/Kolkata", "2027-01-14 18:15", "2027-01-14"),  # 23:45
        ("Asia/Kolkata", "2027-01-14 18:45", "2027-01-15"),  # 00:15
        ("UTC", "2027-01-14 23:59", "2027-01-14"),
    ],
)
def test_a_change_counts_on_its_local_day(
    service: MemoryService, clock: FakeClock, zone: str, utc: str, local_day: str
) -> None:
    tz = ZoneInfo(zone)
    scope = service.resolve_scope(cwd=CWD, register=True)
    clock.now = at(utc)
    service.add(scope, make_draft("Late"), "codex")
    found = overview(service, scope, at("2027-01-15 20:00"), tz).writes
    day = local_midnight(date.fromisoformat(local_day), tz)
    assert [found.counts[i][0] for i, d in enumerate(found.days) if d == day] == [1]
    assert sum(map(sum, found.counts)) == 1


def test_days_across_a_daylight_saving_change(service: MemoryService, clock: FakeClock) -> None:
    """Berlin's clocks go forward on Sunday 2026-03-29: that day has 23 hours, and 23:30
    that evening (21:30 UTC) is still the 29th, the last day of its week."""
    berlin = ZoneInfo("Europe/Berlin")
    scope = service.resolve_scope(cwd=CWD, register=True)
    clock.now = at("2026-03-29 21:30")
    service.add(scope, make_draft("Sunday night"), "codex")
    service.remove(service.add(scope, make_draft("Gone"), "codex").memory.id, "codex")
    clock.now = at("2026-03-30 06:00")  # Monday 08:00 in Berlin
    service.add(scope, make_draft("Monday"), "codex")
    found = overview(service, scope, clock.now, berlin)
    days = found.writes.days
    assert days[-1] - days[-2] == 23 * 3600
    assert [c[0] for c in found.writes.counts[-2:]] == [3, 1]
    assert found.stale_removed.removed[-2:] == (1, 0)  # in the week before Monday's
    assert column(found.memories.counts, 0)[-2:] == [1, 2]


def test_uses_against_importance(service: MemoryService, clock: FakeClock) -> None:
    scope = service.resolve_scope(cwd=CWD, register=True)
    ids = [
        service.add(scope, make_draft(unique(i), importance=imp), "codex").memory.id
        for i, imp in enumerate((2, 2, 7, 7, 10))
    ]
    used = clock.now
    service.store.reinforce({ids[1]: (1, used, 0.0), ids[2]: (3, used, 0.0)})
    service.store.reinforce({ids[3]: (150, used + 5, 0.0)})
    service.remove(ids[4], GUI_ACTOR)
    grid = overview(service, scope, clock.now + 1, UTC).uses
    assert grid.buckets == USE_LABELS
    assert grid.counts[2] == (1, 1, 0, 0, 0, 0)
    assert grid.counts[7] == (0, 0, 1, 0, 0, 1)
    assert grid.counts[10] == (0,) * 6  # removed
    assert grid.last_used[7][5] == pytest.approx(used + 5)
    assert grid.last_used[2][0] is None
    assert sum(map(sum, grid.counts)) == 4


def test_memory_md_budget_per_category(make_service: ServiceFactory, clock: FakeClock) -> None:
    service = make_service(settings=Settings(precis_budget_bytes=4096))
    scope = service.resolve_scope(cwd=CWD, register=True)
    fact = service.add(scope, make_draft("A fact", importance=9), "codex").memory
    skill = service.add(scope, make_draft("Deploy with make", category="skill"), "codex").memory
    service.add(GLOBAL_PROJECT_ID, make_draft("Be brief", category="preference"), "codex")
    found = overview(service, scope, clock.now, UTC).budget
    assert found is not None
    assert not found.truncated
    assert found.budget == 4096
    assert found.used == service.precis(scope).bytes
    share = dict(zip(found.categories, found.bytes, strict=True))
    assert share[K] == len(render_block(fact).encode())  # first: no blank line before it
    assert share[S] == len(render_block(skill).encode()) + 2
    assert dict(zip(found.categories, found.memories, strict=True)) == {K: 1, P: 1, T: 0, S: 1}


def test_a_cut_memory_md_counts_what_fits(make_service: ServiceFactory, clock: FakeClock) -> None:
    service = make_service(settings=Settings(precis_budget_bytes=300))
    scope = service.resolve_scope(cwd=CWD, register=True)
    for i in range(6):
        service.add(scope, make_draft(unique(i) + " word" * 20), "codex")
    found = overview(service, scope, clock.now, UTC).budget
    precis = service.precis(scope)
    assert found is not None
    assert found.truncated
    assert precis.truncated
    assert found.used == precis.bytes - len(TRUNCATION_MARK.encode())


def test_every_scope_together(service: MemoryService, clock: FakeClock) -> None:
    scope = service.resolve_scope(cwd=CWD, register=True)
    other = service.resolve_scope(cwd="/home/dev/src/web", register=True)
    service.add(scope, make_draft("Here"), "codex")
    service.add(other, make_draft("There", category="task"), "claude-code")
    found = overview(service, None, clock.now, UTC)
    assert found.budget is None
    assert found.scope is None
    assert found.memories.counts[-1] == (1, 0, 1, 0)
    assert found.writes.counts[-1] == (1, 1)
    assert overview(service, scope, clock.now, UTC).memories.counts[-1] == (1, 0, 0, 0)


def test_the_cache_recomputes_only_when_the_head_moves(
    service: MemoryService, clock: FakeClock
) -> None:
    scope = service.resolve_scope(cwd=CWD, register=True)
    cache = OverviewCache()
    first = cache.get(service, scope, clock.now, UTC)
    assert cache.get(service, scope, clock.now + 60, UTC) is first
    assert cache.get(service, None, clock.now, UTC) is not first
    assert cache.computed == 2
    service.add(scope, make_draft("News"), "codex")
    second = cache.get(service, scope, clock.now, UTC)
    assert cache.computed == 3
    assert second.head > first.head
    assert second.memories.counts[-1][0] == 1
    assert cache.get(service, scope, clock.now + DAY, UTC) is not second  # a new day
    assert cache.computed == 4


def test_the_fixed_test_start_is_a_friday() -> None:
    assert datetime.fromtimestamp(START, UTC).strftime("%A") == "Friday"

"""The Overview's counts on PostgreSQL are SQLite's, bucket for bucket and row for row:
the same rows in both engines, the same questions, equal answers."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import UTC
from pathlib import Path

import pytest

from ltm_desktop.core.overview import figures
from ltm_desktop.core.overview.figures import REMOVALS, USE_EDGES
from ltm_desktop.core.overview.reads import OverviewReads
from ltm_desktop.core.records import Memory, PrecisInfo
from ltm_desktop.core.settings.config import Settings
from ltm_desktop.postgres.database import PgDatabase
from ltm_desktop.postgres.overview import PgOverview
from ltm_desktop.postgres.scopes import ScopeKeys
from tests.postgres.twin_rows import (
    DAY,
    PROJECTS,
    T0,
    Twins,
    day_edges,
    english_database,
    make_twins,
    world,
)

SCOPES = (None, *PROJECTS, "proj_never_written")
NOW = T0 + 20.5 * DAY


@pytest.fixture
def twins(pg_db: PgDatabase, tmp_path: Path) -> Iterator[Twins]:
    yield from make_twins(pg_db, tmp_path)


@pytest.fixture
def overview(pg_db: PgDatabase, keys: ScopeKeys) -> PgOverview:
    return PgOverview(pg_db, keys)


def edge_sets() -> list[list[float]]:
    weekly = [T0 + k * 7 * DAY for k in range(4)] + [math.nextafter(NOW, math.inf)]
    return [
        day_edges(21, NOW),
        weekly,
        [],  # no edges: everything is bucket 0
        [T0 + DAY, T0 + DAY, T0 + 2 * DAY],  # an edge twice
        [T0 + 3 * DAY, T0 + DAY, T0 + 9 * DAY],  # out of order: the same steps as SQLite
    ]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_timeline_is_sqlites_bucket_for_bucket(
    twins: Twins, overview: PgOverview, seed: int
) -> None:
    twins.insert_world(world(seed))
    compared = 0
    for scope in SCOPES:
        for edges in edge_sets():
            for stale_importance, stale_days in ((3, 7), (10, 0), (0, 30)):
                args = (scope, edges, stale_importance, stale_days * DAY)
                expected = twins.sqlite.memory_timeline(*args)
                assert overview.memory_timeline(*args) == expected, args
                compared += len(expected)
    assert compared > 1000  # the rows spread over many buckets, removed and stale ones too


@dataclass
class Source:
    """What the Overview reads, for scope None (no budget: no precis, no memories)."""

    store: OverviewReads
    settings: Settings

    def precis(self, project_id: str, include_global: bool = True) -> PrecisInfo:
        raise AssertionError("not for every scope")

    def get_many(self, memory_ids: Sequence[str]) -> dict[str, Memory]:
        raise AssertionError("not for every scope")


class PgReads(PgOverview):
    def last_event_seq(self) -> int:
        raise AssertionError("the head is given")


@pytest.mark.parametrize("seed", [1, 2])
def test_the_whole_overview_is_sqlites(twins: Twins, keys: ScopeKeys, seed: int) -> None:
    twins.insert_world(world(seed))
    settings = replace(Settings(), stale_age_days=7, stale_max_importance=4)
    on_pg = Source(PgReads(twins.pg, keys), settings)
    on_sqlite = Source(twins.sqlite, settings)
    for now in (NOW, T0 + 3.25 * DAY, T0 + 60 * DAY):
        found = figures.overview(on_pg, None, now, tz=UTC, head=7)
        assert found == figures.overview(on_sqlite, None, now, tz=UTC, head=7)
        assert not found.is_empty


def test_the_timeline_says_never_for_what_is_not_removed_or_cannot_be_stale(
    twins: Twins, overview: PgOverview
) -> None:
    twins.insert_world(world(7))
    rows = overview.memory_timeline(None, day_edges(21, NOW), 3, 7 * DAY)
    assert any(row[2] is None for row in rows)
    assert any(row[2] is not None for row in rows)
    assert any(row[3] is None for row in rows)
    assert any(row[3] is not None for row in rows)
    total = sum(row[4] for row in rows)
    assert total == len(twins.tables["memories"])


def test_a_memory_on_an_edge_counts_from_that_edge(twins: Twins, overview: PgOverview) -> None:
    rows = world(4, memories=4)
    times = (math.nextafter(T0, -math.inf), T0, T0 + DAY, NOW)
    rows["memories"] = [
        {**memory, "project_pk": 2, "created_at": created, "updated_at": created, "disabled": 0}
        for memory, created in zip(rows["memories"], times, strict=True)
    ]
    twins.insert_world(rows)
    edges = day_edges(3, NOW)
    for scope in (None, "proj_alpha"):
        found = overview.memory_timeline(scope, edges, 3, DAY)
        assert found == twins.sqlite.memory_timeline(scope, edges, 3, DAY)
        # just before T0, on T0, on T0 + 1 day, at now (before the edge just after it)
        assert sorted(created for _, created, _, _, _ in found) == [0, 1, 2, 3]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_use_grid_is_sqlites(twins: Twins, overview: PgOverview, seed: int) -> None:
    twins.insert_world(world(seed))
    for scope in SCOPES:
        for use_edges in (USE_EDGES, (), (1, 1, 5), (3,)):
            expected = twins.sqlite.use_grid(scope, use_edges)
            assert overview.use_grid(scope, use_edges) == expected, (scope, use_edges)
    assert overview.use_grid(None, USE_EDGES)  # something was compared


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_event_counts_are_sqlites(twins: Twins, overview: PgOverview, seed: int) -> None:
    twins.insert_world(world(seed))
    for scope in SCOPES:
        for edges in edge_sets()[:2] + [[T0 + 5 * DAY, T0 + 6 * DAY]]:
            for removals in (REMOVALS, ("created",), ("removed", "nothing")):
                expected = twins.sqlite.event_counts(scope, edges, removals)
                assert overview.event_counts(scope, edges, removals) == expected
    rows = overview.event_counts(None, day_edges(21, NOW), REMOVALS)
    assert {actor for actor, *_ in rows} >= {"Codex", "codex", "Ω-bot"}
    assert any(removal for _, _, removal, _ in rows)


def test_event_counts_without_removals_count_none_as_removals(
    twins: Twins, overview: PgOverview
) -> None:
    """(SQLite's ``IN ()`` of nothing is NULL there, and its read fails; PostgreSQL's
    answer is the only sensible one.)"""
    twins.insert_world(world(5))
    rows = overview.event_counts(None, day_edges(21, NOW), ())
    assert rows
    assert not any(removal for _, _, removal, _ in rows)
    assert sum(n for *_, n in rows) == sum(
        n for *_, n in overview.event_counts(None, day_edges(21, NOW), REMOVALS)
    )


def test_no_edges_no_events(twins: Twins, overview: PgOverview) -> None:
    twins.insert_world(world(6))
    assert overview.event_counts(None, [], REMOVALS) == twins.sqlite.event_counts(
        None, [], REMOVALS
    )
    assert overview.event_counts(None, [], REMOVALS) == []


def test_an_unknown_scope_has_no_counts(overview: PgOverview) -> None:
    assert overview.memory_timeline("proj_nowhere", day_edges(3, NOW), 3, DAY) == []
    assert overview.use_grid("proj_nowhere", USE_EDGES) == []
    assert overview.event_counts("proj_nowhere", day_edges(3, NOW), REMOVALS) == []
    assert overview.memory_timeline(None, day_edges(3, NOW), 3, DAY) == []


@pytest.fixture
def english_twins(tmp_path: Path, pg_server_url: str) -> Iterator[Twins]:
    for db in english_database(pg_server_url):
        yield from make_twins(db, tmp_path)


def test_actors_come_in_sqlites_order_where_text_sorts_by_language(
    english_twins: Twins, keys: ScopeKeys
) -> None:
    english_twins.insert_world(world(1))
    overview = PgOverview(english_twins.pg, keys)
    edges = day_edges(21, NOW)
    found = overview.event_counts(None, edges, REMOVALS)
    assert found == english_twins.sqlite.event_counts(None, edges, REMOVALS)
    actors = list(dict.fromkeys(actor for actor, *_ in found))
    assert actors == sorted(actors)
    assert actors.index("Codex") < actors.index("agent-b")

"""The projects sidebar's counts on PostgreSQL are SQLite's: active memories, memories
agents added since a time, and stale candidates, per scope, for the same rows."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from ltm_desktop.postgres.counts import PgCounts
from ltm_desktop.postgres.database import PgDatabase
from ltm_desktop.postgres.scopes import ScopeKeys
from tests.postgres.twin_rows import DAY, T0, Twins, make_twins, world

NOWS = (T0 - 10 * DAY, T0, T0 + 5 * DAY, T0 + 12.5 * DAY, T0 + 1000 * DAY)


@pytest.fixture
def twins(pg_db: PgDatabase, tmp_path: Path) -> Iterator[Twins]:
    yield from make_twins(pg_db, tmp_path)


@pytest.fixture
def counts(pg_db: PgDatabase, keys: ScopeKeys) -> PgCounts:
    return PgCounts(pg_db, keys)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_counts_per_scope_are_sqlites(twins: Twins, counts: PgCounts, seed: int) -> None:
    twins.insert_world(world(seed))
    counted = 0
    for now in NOWS:
        expected = twins.sqlite.active_counts(now)
        assert counts.active_counts(now) == expected
        counted += sum(expected.values())
        for since in (T0 - 100 * DAY, T0 + 2 * DAY, now):
            assert counts.new_counts(since, now) == twins.sqlite.new_counts(since, now)
        for max_importance in (0, 3, 10):
            for cutoff in (T0, T0 + 4 * DAY, now):
                expected = twins.sqlite.stale_counts(max_importance, cutoff, now)
                assert counts.stale_counts(max_importance, cutoff, now) == expected
                counted += sum(expected.values())
    assert counted > 500


def memory(pk: int, **values: object) -> dict[str, object]:
    row: dict[str, object] = {
        "pk": pk,
        "id": f"mem_{pk:04d}",
        "project_pk": 2,
        "title": "t",
        "content": "c",
        "category": "knowledge",
        "importance": 2,
        "tags": json.dumps([]),
        "signature": f"s{pk}",
        "created_at": T0,
        "updated_at": T0,
        "use_count": 0,
        "expires_at": None,
        "disabled": 0,
        "reviewed_at": None,
        "source": "codex",
    }
    row.update(values)
    return row


def test_what_each_count_leaves_out(twins: Twins, counts: PgCounts) -> None:
    twins.insert(
        "projects",
        [{"pk": 2, "project_id": "proj_c", "path": None, "name": "c", "created_at": T0}],
    )
    twins.insert(
        "memories",
        [
            memory(1),  # active, new, stale
            memory(2, disabled=1),  # removed: nowhere
            memory(3, expires_at=T0 + DAY),  # expired at now: nowhere
            memory(4, expires_at=T0 + 3 * DAY, source="gui"),  # active, made in the app
            memory(5, reviewed_at=T0 + DAY),  # reviewed after the cutoff: not stale
            memory(6, updated_at=T0 + DAY, reviewed_at=T0 - DAY),  # updated after: not stale
            memory(7, use_count=1),  # used: not stale
            memory(8, importance=9),  # important: not stale
            memory(9, created_at=T0 - DAY, updated_at=T0 - DAY),  # old: not new
        ],
    )
    now, cutoff, since = T0 + 2 * DAY, T0 + 0.5 * DAY, T0 - 0.5 * DAY
    assert counts.active_counts(now) == twins.sqlite.active_counts(now) == {"proj_c": 7}
    assert counts.new_counts(since, now) == twins.sqlite.new_counts(since, now) == {"proj_c": 5}
    expected = twins.sqlite.stale_counts(3, cutoff, now)
    assert counts.stale_counts(3, cutoff, now) == expected == {"proj_c": 3}  # 1, 4 and 9


def test_an_empty_database_counts_nothing(counts: PgCounts) -> None:
    assert counts.active_counts(T0) == {}
    assert counts.new_counts(T0, T0) == {}
    assert counts.stale_counts(3, T0, T0) == {}

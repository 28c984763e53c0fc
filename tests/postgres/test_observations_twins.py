"""Observations on PostgreSQL: written, listed, counted, grouped by session and forgotten
as on SQLite (the same rows in both engines answer the same questions alike), and
searchable from the moment they are written until they are forgotten."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from ltm_desktop.core.errors import NotFound
from ltm_desktop.core.observations import ObservationPayload
from ltm_desktop.core.records import Observation, ObservationKind
from ltm_desktop.postgres.database import PgDatabase
from ltm_desktop.postgres.observations import PgObservations
from ltm_desktop.postgres.scopes import ScopeKeys
from tests.postgres.twin_rows import (
    PROJECTS,
    SESSIONS,
    T0,
    Twins,
    english_database,
    make_twins,
    world,
)

SCOPES = (*PROJECTS, "proj_never_written")
PAYLOAD = ObservationPayload(
    kind=ObservationKind.AGENT_END,
    session_id="sess-1",
    title="Ran the migrations",
    narrative="User: migrate the Straße table\n\nAssistant: done with --force-with-lease",
)


@pytest.fixture
def twins(pg_db: PgDatabase, tmp_path: Path) -> Iterator[Twins]:
    yield from make_twins(pg_db, tmp_path)


@pytest.fixture
def observations(pg_db: PgDatabase, keys: ScopeKeys) -> PgObservations:
    return PgObservations(pg_db, keys)


def matches(db: PgDatabase, observation_id: str, word: str) -> bool:
    row = db.read(
        lambda c: c.execute(
            "SELECT search @@ to_tsquery('simple', %s) FROM observations WHERE id = %s",
            (word, observation_id),
        ).fetchone()
    )
    assert row is not None
    return bool(row[0])


@pytest.mark.parametrize("seed", [1, 2])
def test_lists_counts_and_sessions_are_sqlites(
    twins: Twins, observations: PgObservations, seed: int
) -> None:
    twins.insert_world(world(seed))
    listed = 0
    for scope in SCOPES:
        for session in (None, *SESSIONS, "no-such-session"):
            for limit, offset in ((1000, 0), (4, 0), (4, 3), (10, 500)):
                expected = twins.sqlite.list_observations(scope, limit, offset, session)
                assert observations.list_observations(scope, limit, offset, session) == expected
                listed += len(expected)
            expected_count = twins.sqlite.count_observations(scope, session)
            assert observations.count_observations(scope, session) == expected_count
        for limit in (1, 2, 3, 100):
            expected_sessions = twins.sqlite.observation_sessions(scope, limit)
            assert observations.observation_sessions(scope, limit) == expected_sessions
    assert listed > 100
    for row in twins.tables["observations"]:
        assert observations.get_observation(row["id"]) == twins.sqlite.get_observation(row["id"])


@pytest.fixture
def english_twins(tmp_path: Path, pg_server_url: str) -> Iterator[Twins]:
    for db in english_database(pg_server_url):
        yield from make_twins(db, tmp_path)


def test_sessions_tied_on_time_come_in_code_point_order(
    english_twins: Twins, keys: ScopeKeys
) -> None:
    """Even where the database sorts text by language (``a < B < s1 < S1``)."""
    rows = world(1)
    for n, row in enumerate(rows["observations"]):
        row.update(project_pk=2, created_at=T0, disabled=0, session_id=SESSIONS[n % len(SESSIONS)])
    english_twins.insert_world(rows)
    observations = PgObservations(english_twins.pg, keys)
    found = observations.observation_sessions(PROJECTS[1], 100)
    assert found == sorted(SESSIONS) == english_twins.sqlite.observation_sessions(PROJECTS[1], 100)
    assert observations.observation_sessions(PROJECTS[1], 2) == ["S1", "Zed"]


def test_an_observation_is_written_as_on_sqlite(
    twins: Twins, observations: PgObservations, keys: ScopeKeys
) -> None:
    added = observations.add_observation("proj_new", PAYLOAD, "claude-code", T0 + 0.5)
    on_sqlite = twins.sqlite.add_observation("proj_new", PAYLOAD, "claude-code", T0 + 0.5)
    assert added.id.startswith("obs_")
    assert added.id[4:15] == on_sqlite.id[4:15]
    assert replace(added, id=on_sqlite.id) == on_sqlite
    assert observations.get_observation(added.id) == added
    assert observations.list_observations("proj_new", 10, 0, None) == [added]
    assert observations.list_observations("proj_new", 10, 0, "sess-1") == [added]
    assert observations.count_observations("proj_new", None) == 1
    assert observations.observation_sessions("proj_new", 10) == ["sess-1"]
    assert twins.pg.read(lambda c: keys.pk(c, "proj_new")) is not None  # the scope was made
    for word in ("migrations", "straße", "lease", "force"):  # folded as SQLite folds
        assert matches(twins.pg, added.id, word), word


def test_two_observations_in_one_scope_share_its_row(
    observations: PgObservations, pg_db: PgDatabase
) -> None:
    first = observations.add_observation("proj_x", PAYLOAD, "codex", T0)
    second = observations.add_observation(
        "proj_x", replace(PAYLOAD, session_id="sess-2"), "codex", T0 + 1
    )
    assert observations.list_observations("proj_x", 10, 0, None) == [second, first]
    assert observations.observation_sessions("proj_x", 10) == ["sess-2", "sess-1"]
    rows = pg_db.read(
        lambda c: c.execute("SELECT count(*) FROM projects WHERE project_id = 'proj_x'").fetchone()
    )
    assert rows == (1,)


def test_forgetting_takes_it_out_of_lists_and_search_once(
    twins: Twins, observations: PgObservations
) -> None:
    kept = observations.add_observation("proj_f", PAYLOAD, "codex", T0)
    gone = observations.add_observation("proj_f", PAYLOAD, "codex", T0 + 1)
    sqlite_gone = twins.sqlite.add_observation("proj_f", PAYLOAD, "codex", T0 + 1)

    forgotten, changed = observations.forget_observation(gone.id, "gui", T0 + 2)
    assert (forgotten, changed) == (replace(gone, disabled=True), True)
    on_sqlite = twins.sqlite.forget_observation(sqlite_gone.id, "gui", T0 + 2)
    assert (replace(forgotten, id=sqlite_gone.id), changed) == on_sqlite

    assert observations.forget_observation(gone.id, "gui", T0 + 3) == (forgotten, False)
    assert observations.get_observation(gone.id) == forgotten  # still there, marked
    assert observations.list_observations("proj_f", 10, 0, None) == [kept]
    assert observations.count_observations("proj_f", None) == 1
    assert not matches(twins.pg, gone.id, "migrations")
    assert matches(twins.pg, kept.id, "migrations")
    who = twins.pg.read(
        lambda c: c.execute(
            "SELECT disabled_at, disabled_by FROM observations WHERE id = %s", (gone.id,)
        ).fetchone()
    )
    assert who == (T0 + 2, "gui")  # the first forgetting's, not the second call's


def test_forgetting_the_last_of_a_session_drops_the_session(
    observations: PgObservations,
) -> None:
    only = observations.add_observation("proj_s", PAYLOAD, "codex", T0)
    observations.add_observation("proj_s", replace(PAYLOAD, session_id="other"), "codex", T0 - 1)
    observations.forget_observation(only.id, "gui", T0 + 1)
    assert observations.observation_sessions("proj_s", 10) == ["other"]


def test_unknown_observations_and_scopes(observations: PgObservations) -> None:
    with pytest.raises(NotFound, match="obs_nothing"):
        observations.get_observation("obs_nothing")
    with pytest.raises(NotFound, match="obs_nothing"):
        observations.forget_observation("obs_nothing", "gui", T0)
    assert observations.list_observations("proj_nowhere", 10, 0, None) == []
    assert observations.count_observations("proj_nowhere", "s") == 0
    assert observations.observation_sessions("proj_nowhere", 10) == []


def test_an_observation_is_a_record(observations: PgObservations) -> None:
    added = observations.add_observation(
        "global", replace(PAYLOAD, kind=ObservationKind.PRE_COMPACT), "gemini", T0
    )
    assert isinstance(added, Observation)
    assert added.kind is ObservationKind.PRE_COMPACT
    assert observations.get_observation(added.id).kind is ObservationKind.PRE_COMPACT

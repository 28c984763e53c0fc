"""The review inbox's reads on PostgreSQL answer as SQLite's do: the same proposals,
unreviewed memories and runs in both engines, the same questions, equal answers (order,
pages and ties included)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ltm_desktop.core.errors import NotFound
from ltm_desktop.postgres.database import PgDatabase
from ltm_desktop.postgres.inbox_reads import PgInboxReads
from ltm_desktop.postgres.scopes import ScopeKeys
from tests.postgres.twin_rows import DAY, PROJECTS, T0, Twins, make_twins, world

SCOPES = (None, *PROJECTS, "proj_never_written")
PAGES = ((1000, 0), (3, 0), (3, 2), (5, 100), (0, 0))  # 0: what the Inbox asks when full
STATES = ("proposed", "approved", "rejected")
NOWS = (T0 - 10 * DAY, T0 + 3 * DAY, T0 + 10 * DAY, T0 + 1000 * DAY)


@pytest.fixture
def twins(pg_db: PgDatabase, tmp_path: Path) -> Iterator[Twins]:
    yield from make_twins(pg_db, tmp_path)


@pytest.fixture
def reads(pg_db: PgDatabase, keys: ScopeKeys) -> PgInboxReads:
    return PgInboxReads(pg_db, keys)


@pytest.mark.parametrize("seed", [1, 2])
def test_proposals_read_as_on_sqlite(twins: Twins, reads: PgInboxReads, seed: int) -> None:
    twins.insert_world(world(seed))
    for row in twins.tables["proposals"]:
        assert reads.get_proposal(row["id"]) == twins.sqlite.get_proposal(row["id"])
    listed = 0
    for scope in SCOPES:
        for state in STATES:
            for limit, offset in PAGES:
                expected = twins.sqlite.list_proposals(scope, state, limit, offset)
                assert reads.list_proposals(scope, state, limit, offset) == expected
                listed += len(expected)
            if scope is not None:
                expected = twins.sqlite.merge_proposals(scope, state)
                assert reads.merge_proposals(scope, state) == expected
                listed += len(expected)
    assert listed > 100


def test_a_proposal_reads_whole(twins: Twins, reads: PgInboxReads) -> None:
    twins.insert_world(world(3))
    merge = next(row for row in twins.tables["proposals"] if row["merges"] != "[]")
    proposal = reads.get_proposal(merge["id"])
    assert proposal.is_merge
    assert proposal.merges[0].version == 1.5
    assert proposal.provenance.agent == "codex"
    assert [p.id for p in reads.merge_proposals(PROJECTS[0], "proposed")] == [
        p.id for p in twins.sqlite.merge_proposals(PROJECTS[0], "proposed")
    ]


def test_an_unknown_proposal_is_not_found(twins: Twins, reads: PgInboxReads) -> None:
    twins.insert_world(world(1))
    with pytest.raises(NotFound, match="prop_nothing"):
        twins.sqlite.get_proposal("prop_nothing")
    with pytest.raises(NotFound, match="prop_nothing"):
        reads.get_proposal("prop_nothing")


@pytest.mark.parametrize("seed", [1, 2])
def test_unreviewed_memories_and_counts_are_sqlites(
    twins: Twins, reads: PgInboxReads, seed: int
) -> None:
    twins.insert_world(world(seed))
    listed = 0
    for now in NOWS:
        assert reads.inbox_counts(now) == twins.sqlite.inbox_counts(now)
        for scope in SCOPES:
            for limit, offset in PAGES:
                expected = twins.sqlite.list_unreviewed(scope, limit, offset, now)
                assert reads.list_unreviewed(scope, limit, offset, now) == expected
                listed += len(expected)
    assert listed > 50
    assert sum(reads.inbox_counts(T0).values()) > 0


@pytest.mark.parametrize("seed", [1, 2])
def test_runs_are_listed_as_on_sqlite(twins: Twins, reads: PgInboxReads, seed: int) -> None:
    twins.insert_world(world(seed))
    for scope in SCOPES:
        for limit in (1, 3, 100):
            assert reads.list_runs(scope, limit) == twins.sqlite.list_runs(scope, limit)
    assert len(reads.list_runs(None, 100)) == len(twins.tables["extraction_runs"])


def test_an_empty_database_has_an_empty_inbox(reads: PgInboxReads) -> None:
    assert reads.inbox_counts(T0) == {}
    assert reads.list_proposals(None, "proposed", 10, 0) == []
    assert reads.list_proposals("proj_nowhere", "proposed", 10, 0) == []
    assert reads.merge_proposals("proj_nowhere", "proposed") == []
    assert reads.list_unreviewed("proj_nowhere", 10, 0, T0) == []
    assert reads.list_runs("proj_nowhere", 10) == []
    assert reads.list_runs(None, 10) == []

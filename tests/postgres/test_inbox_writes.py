"""The inbox's statements in a PostgreSQL write transaction store what SQLite's store:
a proposal and a run written by each engine read back equal, column for column, and a
decision saved over a proposal reads back as decided."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from ltm_desktop.core.errors import NotFound
from ltm_desktop.core.inbox.proposals import (
    ExtractionRun,
    MergeMember,
    Proposal,
    ProposalState,
    RunStatus,
)
from ltm_desktop.core.records import Category, Provenance
from ltm_desktop.postgres import inbox
from ltm_desktop.postgres.database import PgDatabase
from ltm_desktop.postgres.inbox_reads import PgInboxReads
from ltm_desktop.postgres.scopes import ScopeKeys
from ltm_desktop.store.write_txn import SqliteWriteTxn
from tests.postgres.twin_rows import T0, Twins, make_twins

SCOPE = "proj_inbox"
PROPOSAL_COLUMNS = (
    "id, title, content, category, importance, tags, ttl_days, signature, source, provenance, "
    "state, created_at, updated_at, decided_at, decided_by, memory_id, outcome, "
    "memory_version, superseded_id, merges, files"
)


def proposal(n: int, **changes: object) -> Proposal:
    made = Proposal(
        id=f"prop_{n:04d}",
        project_id=SCOPE,
        title=f"Use ruff {n}",
        content=f"Run ruff format before committing — «{n}»",
        category=Category.PREFERENCE,
        importance=6,
        tags=("lint", "ütf"),
        ttl_days=None,
        signature=f"sig-{n}",
        source="claude-code",
        provenance=Provenance("run_1", "claude-code", "sess", "text", "model-x", T0 + 0.25),
        state=ProposalState.PROPOSED,
        created_at=T0 + n,
        updated_at=T0 + n,
        files=("src/app.py",),
    )
    return replace(made, **changes)  # type: ignore[arg-type]


def run(n: int) -> ExtractionRun:
    return ExtractionRun(
        id=f"run_{n:04d}",
        project_id=SCOPE,
        started_at=T0 + n,
        finished_at=T0 + n + 0.5,
        agent="codex",
        session_id="s1",
        source="/home/me/.codex/sessions/s1.jsonl",
        model="model-x",
        status=RunStatus.OK if n % 2 else RunStatus.FAILED,
        reason=None if n % 2 else "the model timed out",
        added=1,
        proposed=2,
        duplicates=3,
        invalid=4,
        refused=5,
        item_ids=(f"prop_{n:04d}", "mem_1"),
    )


@pytest.fixture
def twins(pg_db: PgDatabase, tmp_path: Path) -> Iterator[Twins]:
    yield from make_twins(pg_db, tmp_path)


def pg_write(db: PgDatabase, keys: ScopeKeys, items: list[Proposal | ExtractionRun]) -> None:
    with db.transaction() as conn:
        pk = keys.writable_pk(conn, SCOPE, T0)
        for item in items:
            if isinstance(item, Proposal):
                inbox.insert_proposal(conn, pk, item)
            else:
                inbox.insert_run(conn, pk, item)


def test_what_each_engine_stores_reads_back_the_same(twins: Twins, keys: ScopeKeys) -> None:
    items: list[Proposal | ExtractionRun] = [
        proposal(1),
        proposal(2, merges=(MergeMember("mem_a", T0 + 0.5), MergeMember("mem_b", 3.0))),
        proposal(3, ttl_days=30, tags=(), files=()),
        run(1),
        run(2),
    ]
    with twins.sqlite.write() as txn:
        for item in items:
            if isinstance(item, Proposal):
                txn.insert_proposal(item)
            else:
                txn.insert_run(item)
    pg_write(twins.pg, keys, items)
    reads = PgInboxReads(twins.pg, keys)
    for item in items:
        if isinstance(item, Proposal):
            assert reads.get_proposal(item.id) == item == twins.sqlite.get_proposal(item.id)
    assert reads.list_runs(SCOPE, 10) == twins.sqlite.list_runs(SCOPE, 10) == [run(2), run(1)]
    assert reads.merge_proposals(SCOPE, "proposed") == [items[1]]
    # the columns hold the same text (JSON included): a data dir moves between engines as is
    with twins.sqlite.write() as txn:
        assert isinstance(txn, SqliteWriteTxn)
        on_sqlite = txn._conn.execute(
            f"SELECT {PROPOSAL_COLUMNS} FROM proposals ORDER BY id"
        ).fetchall()
    on_pg = twins.pg.read(
        lambda c: c.execute(f"SELECT {PROPOSAL_COLUMNS} FROM proposals ORDER BY id").fetchall()
    )
    assert [tuple(row) for row in on_sqlite] == on_pg


def test_a_decision_saved_over_a_proposal_reads_back(pg_db: PgDatabase, keys: ScopeKeys) -> None:
    before = proposal(1)
    pg_write(pg_db, keys, [before, proposal(2, signature="other")])
    after = replace(
        before,
        state=ProposalState.APPROVED,
        updated_at=T0 + 50,
        decided_at=T0 + 50,
        decided_by="gui",
        memory_id="mem_x",
        outcome="added",
        memory_version=T0 + 50.125,
        title="Use ruff, always",
    )
    with pg_db.transaction() as conn:
        pk = keys.writable_pk(conn, SCOPE, T0)
        assert inbox.pending_with_signature(conn, pk, "sig-1") == before
        assert inbox.load_proposal(conn, before.id)[1] == before
        inbox.save_proposal(conn, before, after)
        assert inbox.load_proposal(conn, before.id)[1] == after  # seen in its transaction
        assert inbox.pending_with_signature(conn, pk, "sig-1") is None
        with pytest.raises(ValueError, match="keeps its id"):
            inbox.save_proposal(conn, before, replace(after, id="prop_other"))
    assert PgInboxReads(pg_db, keys).get_proposal(before.id) == after
    assert [p.id for p in PgInboxReads(pg_db, keys).list_proposals(SCOPE, "proposed", 9, 0)] == [
        "prop_0002"
    ]


def test_saving_nothing_changed_writes_nothing(pg_db: PgDatabase, keys: ScopeKeys) -> None:
    pg_write(pg_db, keys, [proposal(1)])
    with pg_db.transaction() as conn:
        inbox.save_proposal(conn, proposal(1), proposal(1))
        assert inbox.load_proposal(conn, "prop_0001")[1] == proposal(1)


def test_a_merge_lists_only_in_its_scope_and_state(pg_db: PgDatabase, keys: ScopeKeys) -> None:
    merge = proposal(1, merges=(MergeMember("mem_a", 1.0),))
    older = proposal(0, merges=(MergeMember("mem_b", 2.0),))
    pg_write(pg_db, keys, [merge, older, proposal(2)])
    with pg_db.transaction() as conn:
        pk = keys.writable_pk(conn, SCOPE, T0)
        assert inbox.merge_proposals(conn, pk, "proposed") == [merge, older]  # newest first
        assert inbox.merge_proposals(conn, pk, "rejected") == []
        other = keys.writable_pk(conn, "proj_other", T0)
        assert inbox.merge_proposals(conn, other, "proposed") == []


def test_an_unknown_proposal_is_not_found_in_a_transaction(pg_db: PgDatabase) -> None:
    with pg_db.transaction() as conn, pytest.raises(NotFound, match="prop_missing"):
        inbox.load_proposal(conn, "prop_missing")

"""Near-duplicate candidates on PostgreSQL: every active memory of the scope in the token
band holding enough of the tokens, found in the writer's token sets (``postgres.token_sets``),
which follow other processes' writes and erasures and forget a transaction rolled back."""

from __future__ import annotations

import random
from collections.abc import Collection
from dataclasses import replace
from pathlib import Path

import pytest

from ltm_desktop.core.rules import similarity_tokens
from ltm_desktop.postgres import erasing
from ltm_desktop.postgres.database import PgDatabase
from ltm_desktop.postgres.pg_store import PostgresStore
from ltm_desktop.postgres.token_sets import PgScopeTokenSets, near_duplicates
from tests.postgres.test_fts_search import OTHER, PROJECT, _memory, insert_pg, scope_pk

VOCABULARY = [f"word{i:02d}" for i in range(80)]


def texts(rng: random.Random, count: int) -> list[str]:
    return [" ".join(rng.sample(VOCABULARY, rng.randint(1, 40))) for _ in range(count)]


def candidates(
    db: PgDatabase,
    sets: PgScopeTokenSets,
    pk: int,
    tokens: Collection[str],
    at_least: int,
    low: float = 0,
    high: float = 99,
) -> set[tuple[str, str]]:
    """What the writer is told, in a write transaction as the writer asks."""
    with db.transaction() as conn:
        return set(near_duplicates(conn, sets, pk, tokens, at_least, low, high))


def test_every_memory_holding_enough_tokens_is_a_candidate(pg_db: PgDatabase) -> None:
    """None that holds enough is missed (the bits may let through a few that do not: the
    core computes the exact similarity of each); a memory of another scope, a trashed
    one, or one outside the band never is one; one whose set is not known yet always is."""
    rng = random.Random(7)
    memories = [
        replace(_memory(i, OTHER if i % 9 == 0 else PROJECT, ("t", text, ())), disabled=i % 7 == 0)
        for i, text in enumerate(texts(rng, 300))
    ]
    unknown = [_memory(1000, PROJECT, ("t", "word01 word02 word03", ()))]
    with pg_db.transaction() as conn:
        insert_pg(conn, memories)
        insert_pg(conn, unknown, tokens=False)  # stored before token sets were kept
        pk = scope_pk(conn, PROJECT)
    sets = PgScopeTokenSets()
    by_id = {m.id: m for m in memories + unknown}
    for _ in range(80):
        tokens = similarity_tokens(texts(rng, 1)[0])
        at_least = rng.randint(0, len(tokens) + 1)
        low, high = len(tokens) * 0.7, len(tokens) / 0.7
        found = candidates(pg_db, sets, pk, tokens, at_least, low, high)
        expected = {
            (m.id, m.content)
            for m in memories
            if m.project_id == PROJECT
            and not m.disabled
            and low < len(similarity_tokens(m.content)) < high
            and len(similarity_tokens(m.content) & tokens) >= at_least
        }
        if at_least <= len(tokens) and low < 3 < high:
            expected.add((unknown[0].id, unknown[0].content))
        assert expected <= found
        for memory_id, _ in found:
            m = by_id[memory_id]
            assert m.project_id == PROJECT
            assert not m.disabled
            assert low < len(similarity_tokens(m.content)) < high


@pytest.mark.parametrize("count", [1, 2, 5])
def test_a_scope_without_memories_has_none(pg_db: PgDatabase, count: int) -> None:
    with pg_db.transaction() as conn:
        pk = scope_pk(conn, PROJECT)
    tokens = set(VOCABULARY[:count])
    assert candidates(pg_db, PgScopeTokenSets(), pk, tokens, 1) == set()


def test_the_sets_follow_other_writers_and_erasures(pg_db: PgDatabase) -> None:
    """Sets loaded once are brought up to date from ``seq``: a memory another process
    wrote since is found, an erased one is not."""
    first = _memory(1, PROJECT, ("t", "alpha beta gamma delta", ()))
    second = _memory(2, PROJECT, ("t", "alpha beta gamma epsilon", ()))
    with pg_db.transaction() as conn:
        insert_pg(conn, [first])
        pk = scope_pk(conn, PROJECT)
    sets = PgScopeTokenSets()
    tokens = {"alpha", "beta", "gamma", "delta"}
    assert {i for i, _ in candidates(pg_db, sets, pk, tokens, 3)} == {first.id}
    with pg_db.transaction() as conn:  # another writer, as far as ``sets`` knows
        insert_pg(conn, [second])
    assert {i for i, _ in candidates(pg_db, sets, pk, tokens, 3)} == {first.id, second.id}
    with pg_db.transaction() as conn:
        row = conn.execute("SELECT pk FROM memories WHERE id = %s", (first.id,)).fetchone()
        assert row is not None
        erasing.erase_memory(conn, int(row[0]), pk)
    assert {i for i, _ in candidates(pg_db, sets, pk, tokens, 3)} == {second.id}


def test_a_rolled_back_write_leaves_nothing_in_the_sets(pg_url: str, tmp_path: Path) -> None:
    """The store forgets its sets when a write transaction fails: they may hold its rows."""
    other = _memory(1, PROJECT, ("t", "unrelated words only", ()))
    memory = _memory(2, PROJECT, ("t", "alpha beta gamma delta", ()))
    tokens = {"alpha", "beta", "gamma", "delta"}
    store = PostgresStore(pg_url, tmp_path)
    try:
        with store.write() as txn:  # the scope exists, its sets are loaded
            txn.insert_memory(other, similarity_tokens(other.content))
            assert txn.near_duplicates(PROJECT, tokens, 3, 2, 6) == []
        seen: list[list[tuple[str, str]]] = []

        def undone() -> None:
            with store.write() as txn:
                txn.insert_memory(memory, similarity_tokens(memory.content))
                seen.append(txn.near_duplicates(PROJECT, tokens, 3, 2, 6))
                raise RuntimeError("the core changed its mind")

        with pytest.raises(RuntimeError):
            undone()
        assert [i for i, _ in seen[0]] == [memory.id]
        with store.write() as txn:
            assert txn.near_duplicates(PROJECT, tokens, 3, 2, 6) == []
    finally:
        store.close()


def test_no_gin_index_keeps_a_pending_list(pg_db: PgDatabase) -> None:
    """New rows go into the GIN indexes at once (``fastupdate = off``): a pending list,
    read through by every search until a VACUUM merged it, made the planner read whole
    scopes instead of the index. The token arrays have none (schema version 5): the
    writer compares token sets in memory."""
    rows = pg_db.read(
        lambda c: c.execute(
            "SELECT c.relname, c.reloptions FROM pg_index AS i JOIN pg_class AS c "
            "ON c.oid = i.indexrelid JOIN pg_am AS a ON a.oid = c.relam "
            "WHERE a.amname = 'gin' AND c.relnamespace = current_schema()::regnamespace"
        ).fetchall()
    )
    assert {name for name, _ in rows} == {"memories_search", "observations_search"}
    assert all("fastupdate=off" in (options or []) for _, options in rows), rows

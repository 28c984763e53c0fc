"""Near-duplicate candidates: every active memory of the scope in the token band holding
enough of the tokens, found through the GIN index of token sets."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace
from functools import partial
from typing import Any

import pytest

from ltm_desktop.core.rules import similarity_tokens
from ltm_desktop.postgres.conn import Conn
from ltm_desktop.postgres.database import PgDatabase
from ltm_desktop.postgres.fts import search as fts_search
from tests.pg_server import fresh_database
from tests.postgres.test_fts_search import OTHER, PROJECT, _memory, insert_pg, scope_pk

VOCABULARY = [f"word{i:02d}" for i in range(80)]


def texts(rng: random.Random, count: int) -> list[str]:
    return [" ".join(rng.sample(VOCABULARY, rng.randint(1, 40))) for _ in range(count)]


@pytest.fixture
def new_db(pg_server_url: str) -> Iterator[PgDatabase]:
    """A database of its own: the statistics a reused one kept (TRUNCATE leaves them)
    would decide which tokens are probed."""
    with fresh_database(pg_server_url) as url:
        db = PgDatabase(url)
        try:
            yield db
        finally:
            db.close()


@pytest.mark.parametrize("analyzed", [False, True])
def test_every_memory_holding_enough_tokens_is_a_candidate(
    new_db: PgDatabase, analyzed: bool
) -> None:
    """Whichever tokens are probed (the longest, or the rarest by pg_stats once ANALYZE
    ran; pairs of them, or any one), none that holds enough is missed."""
    rng = random.Random(7)
    memories = [
        replace(_memory(i, OTHER if i % 9 == 0 else PROJECT, ("t", text, ())), disabled=i % 7 == 0)
        for i, text in enumerate(texts(rng, 300))
    ]
    unknown = [_memory(1000, PROJECT, ("t", "word01 word02 word03", ()))]
    with new_db.transaction() as conn:
        # No statistics until this test asks for them: the server's autovacuum would
        # otherwise ANALYZE the new rows at a moment of its own.
        conn.execute("ALTER TABLE memory_index SET (autovacuum_enabled = false)")
        insert_pg(conn, memories)
        insert_pg(conn, unknown, tokens=False)  # stored before token sets were kept
        pk = scope_pk(conn, PROJECT)
    if analyzed:
        new_db.vacuum(["memory_index"])
        with new_db.transaction() as conn:
            conn.execute("ANALYZE memory_index")
    fts_search._frequencies.clear()
    assert bool(new_db.read(fts_search._token_frequencies)) is analyzed
    with new_db.transaction() as conn:
        conn.execute("ALTER TABLE memory_index RESET (autovacuum_enabled)")
    for _ in range(80):
        tokens = similarity_tokens(texts(rng, 1)[0])
        at_least = rng.randint(0, len(tokens) + 1)
        low, high = len(tokens) * 0.7, len(tokens) / 0.7
        found = new_db.read(
            partial(
                fts_search.near_duplicates,
                project_pk=pk,
                tokens=tokens,
                at_least=at_least,
                min_tokens=low,
                max_tokens=high,
            )
        )
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
        assert set(found) == expected


@pytest.mark.parametrize("count", [1, 2, 5])
def test_a_scope_without_memories_has_none(pg_db: PgDatabase, count: int) -> None:
    with pg_db.transaction() as conn:
        pk = scope_pk(conn, PROJECT)
    tokens = set(VOCABULARY[:count])
    assert pg_db.read(lambda c: fts_search.near_duplicates(c, pk, tokens, 1, 0, 99)) == []


def test_no_gin_index_keeps_a_pending_list(pg_db: PgDatabase) -> None:
    """New rows go into the GIN indexes at once (``fastupdate = off``): a pending list,
    read through by every search until a VACUUM merged it, made the planner read whole
    scopes instead of the index."""
    rows = pg_db.read(
        lambda c: c.execute(
            "SELECT c.relname, c.reloptions FROM pg_index AS i JOIN pg_class AS c "
            "ON c.oid = i.indexrelid JOIN pg_am AS a ON a.oid = c.relam "
            "WHERE a.amname = 'gin' AND c.relnamespace = current_schema()::regnamespace"
        ).fetchall()
    )
    assert {name for name, _ in rows} == {
        "memories_search",
        "memory_index_tokens",
        "observations_search",
    }
    assert all("fastupdate=off" in (options or []) for _, options in rows), rows


def test_candidates_come_from_the_token_index_of_the_scope(pg_db: PgDatabase) -> None:
    """The candidates are found by the GIN index of token sets with the scope in its
    condition, not by reading the scope's rows and testing each (a Python int binds as
    ``smallint``, which the index's ``bigint`` column class cannot use)."""
    rng = random.Random(11)
    words = [f"rare{i:04d}" for i in range(5000)]  # each in about 12 of the 3,000
    memories = [
        _memory(i, OTHER if i % 2 else PROJECT, ("t", " ".join(rng.sample(words, 20)), ()))
        for i in range(3000)
    ]
    with pg_db.transaction() as conn:
        insert_pg(conn, memories)
        pk = scope_pk(conn, PROJECT)
    with pg_db.transaction() as conn:
        conn.execute("ANALYZE memory_index")
    plans: list[str] = []

    def explained(conn: Conn) -> list[tuple[str, str]]:
        real = conn.execute

        def explain(query: str, params: Any = None, **kw: Any) -> Any:
            if query.startswith("WITH c AS"):
                rows = real("EXPLAIN " + query, params, **kw).fetchall()
                plans.append("\n".join(row[0] for row in rows))
            return real(query, params, **kw)

        conn.execute = explain  # type: ignore[method-assign,assignment]
        try:
            return fts_search.near_duplicates(conn, pk, set(words[:3]), 2, 0, 99)
        finally:
            del conn.execute

    pg_db.read(explained)
    assert plans, "the candidates were not asked for"
    assert "memory_index_tokens" in plans[0], plans[0]
    assert "Index Cond: ((project_pk = '" in plans[0], plans[0]

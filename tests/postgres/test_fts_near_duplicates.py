"""Near-duplicate candidates: every active memory of the scope in the token band holding
enough of the tokens, found through the GIN index of token sets."""

from __future__ import annotations

import random
from dataclasses import replace
from functools import partial

import pytest

from ltm_desktop.core.rules import similarity_tokens
from ltm_desktop.postgres import fts_search
from ltm_desktop.postgres.database import PgDatabase
from tests.postgres.test_fts_search import OTHER, PROJECT, _memory, insert_pg, scope_pk

VOCABULARY = [f"word{i:02d}" for i in range(80)]


def texts(rng: random.Random, count: int) -> list[str]:
    return [" ".join(rng.sample(VOCABULARY, rng.randint(1, 40))) for _ in range(count)]


@pytest.mark.parametrize("analyzed", [False, True])
def test_every_memory_holding_enough_tokens_is_a_candidate(
    pg_db: PgDatabase, analyzed: bool
) -> None:
    """Whichever tokens are probed (the longest, or the rarest by pg_stats once ANALYZE
    ran; pairs of them, or any one), none that holds enough is missed."""
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
    if analyzed:
        pg_db.vacuum(["memory_index"])
        with pg_db.transaction() as conn:
            conn.execute("ANALYZE memory_index")
    fts_search._frequencies.clear()
    assert bool(pg_db.read(fts_search._token_frequencies)) is analyzed
    for _ in range(80):
        tokens = similarity_tokens(texts(rng, 1)[0])
        at_least = rng.randint(0, len(tokens) + 1)
        low, high = len(tokens) * 0.7, len(tokens) / 0.7
        found = pg_db.read(
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

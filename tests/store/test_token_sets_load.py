"""A writer's first look at a scope's token sets reads its rows as they are now
(``TokenSets.load``) instead of every change since the start (``TokenSets.update``): after
edits, erasures and a pk SQLite gave again, both find the same near-duplicate candidates,
and later changes still arrive by ``seq``."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from ltm_desktop.core import rules
from ltm_desktop.core.records import MemoryDraft
from ltm_desktop.store.vectors.scope_index import ScopeTokenSets, TokenSets, changed_rows
from tests.conftest import ServiceFactory

CWD = "/srv/shop"
WORDS = "deploy staging vault sentry billing invoice worker queue retry cache".split()


def _text(n: int) -> str:
    """Texts sharing a few words (candidates overlap) but never a near-duplicate's share
    (nothing is superseded)."""
    shared = " ".join(WORDS[(n + k) % len(WORDS)] for k in range(3))
    return f"{shared} " + " ".join(f"w{n}x{k}" for k in range(6))


def _candidates(sets: TokenSets, text: str) -> list[list[int]]:
    tokens = rules.similarity_tokens(text)
    return [sorted(sets.holding(tokens, at_least)) for at_least in (1, 2, 3)]


def test_a_first_look_finds_what_every_change_since_the_start_finds(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    service = make_service(tmp_path / "data")
    scope = service.resolve_scope(cwd=CWD, register=True)
    added = [service.add(scope, MemoryDraft(_text(n)), "agent").memory for n in range(40)]
    for memory in added[:5]:
        service.update(memory.id, {"content": memory.content + " rollback"}, "gui")
    newest = max(added, key=lambda m: m.created_at)
    for memory in [*added[10:15], newest]:  # the newest's pk is given again below
        service.remove(memory.id, "gui")
        service.eraser.erase(memory.id, "gui")
    for n in range(40, 45):
        service.add(scope, MemoryDraft(_text(n) + " again"), "agent")
    conn = sqlite3.connect(service.paths.db_path)
    try:
        (pk,) = conn.execute("SELECT pk FROM projects WHERE project_id = ?", (scope,)).fetchone()
        loaded = ScopeTokenSets().current(conn, pk)
        replayed = TokenSets()
        replayed.update(changed_rows(conn, pk, 0, "token_bits"))
        assert loaded.seq == replayed.seq
        for n in range(50):
            assert _candidates(loaded, _text(n)) == _candidates(replayed, _text(n))
        assert _candidates(loaded, _text(3))[0]  # the texts do overlap
    finally:
        conn.close()
    later = service.add(scope, MemoryDraft("an unrelated text entirely"), "agent").memory
    conn = sqlite3.connect(service.paths.db_path)
    try:
        loaded.update(changed_rows(conn, pk, loaded.seq, "token_bits"))
        (later_pk,) = conn.execute("SELECT pk FROM memories WHERE id = ?", (later.id,)).fetchone()
    finally:
        conn.close()
    assert later_pk in loaded.holding(rules.similarity_tokens(later.content), 3)

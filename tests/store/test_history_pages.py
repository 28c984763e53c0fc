"""The Activity and Observations tabs' reads: a page at any offset and the count, both
filtered by the store as the tab filters them, and a far page found by index."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from ltm_desktop.core.errors import InvalidInput
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.paths import DataPaths
from ltm_desktop.store import memory_reads as reads
from tests.conftest import FakeClock, make_draft

pytestmark = pytest.mark.every_backend  # the pages are a contract of every store

SHOP = "/home/dev/src/shop"
ACTORS = ("gui", "claude-code", "codex")


@pytest.fixture
def busy(service: MemoryService, project: str) -> str:
    """Forty-odd events by three actors in the scope, and some in another scope."""
    other = service.resolve_scope(cwd=SHOP, register=True)
    for i in range(15):
        actor = ACTORS[i % 3]
        memory = service.add(project, make_draft(f"fact {i} about part {i}"), actor).memory
        if i % 2:
            service.update(memory.id, {"importance": 1 + i % 9}, ACTORS[(i + 1) % 3])
        if i % 5 == 0:
            service.remove(memory.id, "gui")
        service.add(other, make_draft(f"elsewhere {i} about part {i}"), "elsewhere")
    return project


def tiles(page: Callable[[int, int], list[str]], whole: list[str], size: int) -> bool:
    """Pages of ``size`` at every offset, in a row, are exactly ``whole``."""
    return [key for offset in range(0, len(whole) + size, size) for key in page(offset, size)] == (
        whole
    )


@pytest.mark.parametrize("actor", [None, "gui", "codex", "nobody"])
def test_history_pages_and_count_agree_with_the_actor_filter(
    service: MemoryService, busy: str, actor: str | None
) -> None:
    def page(offset: int, limit: int) -> list[str]:
        events = service.history.project(busy, limit=limit, offset=offset, actor=actor)
        assert all(e.project_id == busy for e in events)
        assert actor is None or all(e.actor == actor for e in events)
        return [str(e.seq) for e in events]

    whole = page(0, 1_000)
    assert whole == sorted(whole, key=int, reverse=True)  # newest first
    assert service.history.count_project(busy, actor) == len(whole)
    assert tiles(page, whole, 7)
    every = service.history.events_after(0, 10_000)  # the whole log, read another way
    assert whole == [
        str(e.seq)
        for e in reversed(every)
        if e.project_id == busy and (actor is None or e.actor == actor)
    ]
    assert (actor == "nobody") == (not whole)
    if whole:  # the keyset way still pages the same list
        older = service.history.project(busy, limit=1_000, before_seq=int(whole[0]), actor=actor)
        assert [str(e.seq) for e in older] == whole[1:]


def test_history_actors_are_everyone_in_the_scope(service: MemoryService, busy: str) -> None:
    assert service.history.actors(busy) == sorted(ACTORS)  # not "elsewhere", the other scope
    assert service.history.actors(service.resolve_scope(cwd="/nowhere", register=True)) == []


def test_observation_pages_and_count_agree_with_the_session_filter(
    service: MemoryService, project: str
) -> None:
    other = service.resolve_scope(cwd=SHOP, register=True)
    for i in range(30):
        service.observations.record(
            project, "agent_end", f"s{i % 3}", "claude-code", user_text=f"step {i}"
        )
        service.observations.record(other, "agent_end", "s0", "claude-code", user_text=f"other {i}")
    forgotten = service.observations.page(project, limit=1, session="s1")[0]
    service.observations.forget(forgotten.id, "gui")

    for session, expected in ((None, 29), ("s0", 10), ("s1", 9), ("s9", 0)):

        def page(offset: int, limit: int, session: str | None = session) -> list[str]:
            found = service.observations.page(project, limit=limit, offset=offset, session=session)
            assert all(o.project_id == project and not o.disabled for o in found)
            assert session is None or all(o.session_id == session for o in found)
            return [o.id for o in found]

        whole = page(0, 1_000)
        assert len(whole) == service.observations.count(project, session) == expected
        assert forgotten.id not in whole
        assert tiles(page, whole, 4)
        times = [o.created_at for o in service.observations.page(project, 1_000, session=session)]
        assert times == sorted(times, reverse=True)  # newest first


def test_observation_sessions_are_the_scopes_the_one_active_last_first(
    service: MemoryService, project: str, clock: FakeClock
) -> None:
    """Every session the filter can narrow to, not only those of the rows read so far."""
    other = service.resolve_scope(cwd=SHOP, register=True)
    for session in ("old", "middle", "old", "newest", "gone"):
        clock.advance(60)
        service.observations.record(
            project, "agent_end", session, "codex", user_text=f"in {session}"
        )
    service.observations.record(other, "agent_end", "elsewhere", "codex", user_text="another scope")
    service.observations.forget(service.observations.page(project, 1, session="gone")[0].id, "gui")
    # "old" was active again after "middle"; "gone" has nothing listed left
    assert service.observations.sessions(project) == ["newest", "old", "middle"]
    assert service.observations.sessions(project, limit=2) == ["newest", "old"]
    assert service.observations.sessions(service.resolve_scope(cwd="/none", register=True)) == []
    with pytest.raises(InvalidInput):
        service.observations.sessions(project, limit=-1)


@pytest.mark.parametrize(("limit", "offset"), [(-1, 0), (10_001, 0), (10, -1)])
def test_a_page_outside_the_bounds_is_refused(
    service: MemoryService, project: str, limit: int, offset: int
) -> None:
    with pytest.raises(InvalidInput):  # SQLite would read LIMIT -1 as "everything"
        service.history.project(project, limit=limit, offset=offset)
    with pytest.raises(InvalidInput):
        service.observations.page(project, limit=limit, offset=offset)


def plans(db: Path, read: Callable[[sqlite3.Connection, int], object]) -> str:
    """The query plans of what ``read`` runs against the scope's rows."""
    with sqlite3.connect(db) as conn:
        (pk,) = conn.execute("SELECT pk FROM projects WHERE project_id LIKE 'proj_%'").fetchone()
        sql: list[str] = []
        conn.set_trace_callback(sql.append)
        read(conn, pk)
        conn.set_trace_callback(None)
        return " || ".join(
            " | ".join(row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {statement}"))
            for statement in sql
        )


@pytest.mark.sqlite_only
@pytest.mark.parametrize("actor", [None, "gui"])
def test_a_far_history_page_and_the_count_read_an_index_alone(
    busy: str, tmp_path: Path, actor: str | None
) -> None:
    db = DataPaths(tmp_path / "data").db_path
    index = "audit_by_project (project_pk=?)" if actor is None else "audit_by_actor"
    page = plans(
        db, lambda c, pk: reads.project_history(c, pk, limit=200, offset=399_800, actor=actor)
    )
    assert f"SEARCH audit USING COVERING INDEX {index}" in page  # the offset skips index entries
    assert "SEARCH a USING INTEGER PRIMARY KEY" in page  # then reads the page's events alone
    count = plans(db, lambda c, pk: reads.count_history(c, pk, actor))
    assert f"USING COVERING INDEX {index}" in count
    actors = plans(db, reads.history_actors)
    assert "USING COVERING INDEX audit_by_actor (project_pk=? AND actor>?)" in actors


@pytest.mark.sqlite_only
@pytest.mark.parametrize(
    ("session", "index"), [(None, "observations_listed"), ("s1", "observations_by_session")]
)
def test_a_far_observation_page_and_the_count_walk_an_index(
    service: MemoryService, project: str, tmp_path: Path, session: str | None, index: str
) -> None:
    service.observations.record(project, "agent_end", "s1", "claude-code", user_text="one")
    db = DataPaths(tmp_path / "data").db_path
    page = plans(db, lambda c, pk: reads.list_observations(c, pk, 200, 99_800, session))
    assert f"USING INDEX {index}" in page
    assert "TEMP B-TREE" not in page  # in the list's order: no sort of the scope per page
    count = plans(db, lambda c, pk: reads.count_observations(c, pk, session))
    assert f"USING COVERING INDEX {index}" in count


@pytest.mark.sqlite_only
def test_the_sessions_are_read_a_step_of_the_index_each(
    service: MemoryService, project: str, tmp_path: Path
) -> None:
    service.observations.record(project, "agent_end", "s1", "claude-code", user_text="one")
    db = DataPaths(tmp_path / "data").db_path
    sessions = plans(db, lambda c, pk: reads.observation_sessions(c, pk, 500))
    by_session = "USING COVERING INDEX observations_by_session"
    assert f"{by_session} (project_pk=? AND disabled=? AND session_id>?)" in sessions
    assert f"{by_session} (project_pk=? AND disabled=? AND session_id=?)" in sessions
    assert "SCAN observations" not in sessions

"""TTL expiry, stale candidates, statistics and the audit history."""

from __future__ import annotations

import sqlite3

import pytest

from ltm_desktop.core.records import AuditAction, ListQuery
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.config import Settings
from ltm_desktop.store import memory_reads
from tests.conftest import FakeClock, ServiceFactory, make_draft

pytestmark = pytest.mark.every_backend  # the core's rules, whatever stores them


def test_expired_memories_are_hidden_on_read(
    service: MemoryService, project: str, clock: FakeClock
) -> None:
    short = service.add(
        project, make_draft("temporary workaround for flaky ci", ttl_days=2), "a"
    ).memory
    forever = service.add(project, make_draft("permanent convention"), "a").memory
    clock.advance(days=1)
    assert service.count_memories(project) == 2
    clock.advance(days=1.5)
    assert [m.id for m in service.list_memories(project)] == [forever.id]
    assert service.search.query(project, "workaround") == []
    with_expired = service.list_memories(project, ListQuery(include_expired=True))
    assert {m.id for m in with_expired} == {short.id, forever.id}
    assert service.get(short.id).is_expired(service.now())


def test_updating_renews_the_ttl(service: MemoryService, project: str, clock: FakeClock) -> None:
    memory = service.add(project, make_draft("renewable note", ttl_days=2), "a").memory
    clock.advance(days=1.5)
    service.update(memory.id, {"importance": 6}, "gui")
    clock.advance(days=1.5)
    assert service.count_memories(project) == 1


def test_purge_expired_soft_deletes_in_one_go(
    service: MemoryService, project: str, clock: FakeClock
) -> None:
    doomed = [
        service.add(project, make_draft(f"short lived note{i}", ttl_days=1), "a").memory
        for i in range(3)
    ]
    service.add(project, make_draft("long lived"), "a")
    clock.advance(days=2)
    assert service.purge_expired(project) == 3
    assert service.purge_expired(project) == 0
    for memory in doomed:
        stored = service.get(memory.id)
        assert stored.disabled
        assert service.history.memory(memory.id)[-1].action is AuditAction.EXPIRED
        assert service.history.memory(memory.id)[-1].actor == "system"


def test_purge_runs_at_startup(
    make_service: ServiceFactory, clock: FakeClock, tmp_path: object
) -> None:
    first = make_service()
    project = first.resolve_scope(cwd="/srv/app", register=True)
    memory = first.add(project, make_draft("expires soon", ttl_days=1), "a").memory
    first.close()
    clock.advance(days=3)
    second = make_service()
    assert second.get(memory.id).disabled


def test_stale_candidates(service: MemoryService, project: str, clock: FakeClock) -> None:
    stale = service.add(
        project, make_draft("obscure trivia nobody reads", importance=1), "a"
    ).memory
    used = service.add(project, make_draft("low but used note", importance=0), "a").memory
    important = service.add(project, make_draft("important but old", importance=5), "a").memory
    service.search.query(project, "used", reinforce=True)
    clock.advance(days=61)
    fresh = service.add(project, make_draft("fresh low note", importance=0), "a").memory
    stale_ids = [m.id for m in service.stale.memories(project)]
    assert stale_ids == [stale.id]
    assert {used.id, important.id, fresh.id}.isdisjoint(stale_ids)


def test_stale_age_is_configurable_and_review_clears(
    make_service: ServiceFactory, clock: FakeClock
) -> None:
    service = make_service(settings=Settings(stale_age_days=10))
    project = service.resolve_scope(cwd="/srv/app", register=True)
    memory = service.add(project, make_draft("minor detail", importance=0), "a").memory
    clock.advance(days=11)
    assert [m.id for m in service.stale.memories(project)] == [memory.id]
    service.reviews.mark(memory.id, "gui")
    assert service.stale.memories(project) == []
    assert service.history.memory(memory.id)[-1].action is AuditAction.REVIEWED
    clock.advance(days=11)
    assert [m.id for m in service.stale.memories(project)] == [memory.id]


def test_stats(service: MemoryService, project: str, clock: FakeClock) -> None:
    service.add(project, make_draft("active one", importance=0), "a")
    removed = service.add(project, make_draft("removed one"), "a").memory
    service.remove(removed.id, "gui")
    service.add(project, make_draft("expiring one", ttl_days=1), "a")
    service.observations.record(
        project, "agent_end", "s1", "agent", user_text="hi", assistant_text="hello"
    )
    clock.advance(days=61)
    stats = service.stats(project)
    assert (stats.active, stats.disabled, stats.expired, stats.stale, stats.observations) == (
        1,
        1,
        1,
        1,
        1,
    )


def test_every_change_is_audited_with_actor(service: MemoryService, project: str) -> None:
    memory = service.add(project, make_draft("audited text", importance=3), "claude-code").memory
    service.add(project, make_draft("AUDITED text"), "codex")
    service.update(memory.id, {"importance": 8, "tags": ["x"]}, "gui")
    service.remove(memory.id, "gui")
    service.restore(memory.id, "gui")
    events = service.history.memory(memory.id)
    assert [(e.action.value, e.actor) for e in events] == [
        ("created", "claude-code"),
        ("deduplicated", "codex"),
        ("updated", "gui"),
        ("removed", "gui"),
        ("restored", "gui"),
    ]
    created, _, updated, removed, _ = events
    assert created.before is None
    assert created.after is not None
    assert created.after["content"] == "audited text"
    assert created.after["importance"] == 3
    assert updated.before == {"importance": 3, "tags": []}
    assert updated.after == {"importance": 8, "tags": ["x"]}
    assert removed.before == {"disabled": False}
    assert removed.after == {"disabled": True}
    assert all(e.at > 0 for e in events)
    assert [e.seq for e in events] == sorted(e.seq for e in events)


def test_supersede_is_audited_on_both_memories(service: MemoryService, project: str) -> None:
    old = service.add(
        project, make_draft("one two three four five six seven eight nine ten"), "a"
    ).memory
    new = service.add(
        project, make_draft("one two three four five six seven eight nine ten eleven"), "b"
    )
    assert service.history.memory(old.id)[-1].action is AuditAction.SUPERSEDED
    assert service.history.memory(old.id)[-1].after == {
        "disabled": True,
        "superseded_by": new.memory.id,
    }
    created = service.history.memory(new.memory.id)[0]
    assert created.after is not None
    assert created.after["supersedes"] == old.id


def test_project_history_newest_first_and_filterable(service: MemoryService, project: str) -> None:
    a = service.add(project, make_draft("first"), "claude-code").memory
    service.add(project, make_draft("second"), "gui")
    service.update(a.id, {"importance": 1}, "claude-code")
    events = service.history.project(project)
    assert [e.action.value for e in events] == ["updated", "created", "created"]
    assert [e.actor for e in service.history.project(project, actor="gui")] == ["gui"]
    older = service.history.project(project, before_seq=events[0].seq)
    assert len(older) == 2
    assert service.history.events_after(events[1].seq)[-1].seq == events[0].seq


def test_history_of_unknown_memory_is_not_found(service: MemoryService) -> None:
    with pytest.raises(LookupError):
        service.history.memory("mem_missing")


@pytest.mark.sqlite_only
def test_audit_table_is_append_only(service: MemoryService, project: str) -> None:
    service.add(project, make_draft("immutable history"), "a")
    conn = sqlite3.connect(service.store.location)
    try:
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            conn.execute("UPDATE audit SET actor = 'forged'")
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            conn.execute("DELETE FROM audit")
    finally:
        conn.close()


def test_removal_events_give_the_newest_reason_for_each_memory(
    service: MemoryService, project: str, clock: FakeClock
) -> None:
    removed = service.add(project, make_draft("removed by hand"), "a").memory
    service.remove(removed.id, "gui")
    service.restore(removed.id, "gui")
    service.remove(removed.id, "claude-code")
    expired = service.add(project, make_draft("short lived", ttl_days=1), "a").memory
    live = service.add(project, make_draft("still here"), "a").memory
    clock.advance(days=2)
    service.purge_expired(project)
    events = service.history.removal_events([removed.id, expired.id, live.id, "mem_missing"])
    assert set(events) == {removed.id, expired.id}
    assert (events[removed.id].action, events[removed.id].actor) == (
        AuditAction.REMOVED,
        "claude-code",
    )
    assert events[expired.id].action is AuditAction.EXPIRED
    assert service.history.removal_events([]) == {}


@pytest.mark.sqlite_only
def test_get_many_skips_unknown_ids(service: MemoryService, project: str) -> None:
    a = service.add(project, make_draft("first of many"), "a").memory
    b = service.add(project, make_draft("second of many"), "a").memory
    found = service.get_many([a.id, "mem_missing", b.id])
    assert {k: m.title for k, m in found.items()} == {a.id: a.title, b.id: b.title}
    conn = sqlite3.connect(service.store.location)
    conn.setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, 999)  # the oldest builds' limit
    try:
        many = [f"mem_{i}" for i in range(2_500)] + [b.id]
        assert [m.id for m in memory_reads.get_memories(conn, many)] == [b.id]
        created = memory_reads.last_events(conn, many, [AuditAction.CREATED.value])
        assert [e.memory_id for e in created] == [b.id]
    finally:
        conn.close()

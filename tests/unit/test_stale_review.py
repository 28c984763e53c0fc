"""Stale counts per scope, and taking back a Keep, on every backend."""

from __future__ import annotations

import pytest

from ltm_desktop.core.errors import Conflict
from ltm_desktop.core.records import ListQuery
from ltm_desktop.core.service import MemoryService
from tests.conftest import FakeClock, make_draft

pytestmark = pytest.mark.every_backend


def test_stale_counts_and_an_undone_keep(
    service: MemoryService, project: str, clock: FakeClock
) -> None:
    old = service.add(project, make_draft("old trivia", importance=1), "a").memory
    service.add(project, make_draft("important", importance=8), "a")
    clock.advance(days=61)
    assert service.stale.counts() == {project: 1}
    kept = service.reviews.mark(old.id, "gui", expected_updated_at=old.updated_at)
    assert service.stale.counts() == {}
    back = service.reviews.unmark(
        old.id, "gui", (old.reviewed_at, None), expected_updated_at=kept.updated_at
    )
    assert back.reviewed_at == old.reviewed_at
    assert [m.id for m in service.stale.memories(project)] == [old.id]
    assert service.history.memory(old.id)[-1].action == "reviewed"
    service.update(old.id, {"importance": 2}, "agent")
    with pytest.raises(Conflict):
        service.reviews.unmark(old.id, "gui", (None, None), expected_updated_at=back.updated_at)


def test_new_counts_and_the_new_since_filter(
    service: MemoryService, project: str, clock: FakeClock
) -> None:
    service.add(project, make_draft("agent fact before"), "claude-code")
    clock.advance(10)
    since = service.now()
    clock.advance(10)
    fresh = service.add(project, make_draft("agent fact after"), "codex").memory
    service.add(project, make_draft("the person's own note"), "gui")
    assert service.reviews.new_counts(since) == {project: 1}
    listed = service.list_memories(project, ListQuery(new_since=since))
    assert [m.id for m in listed] == [fresh.id]
    assert service.count_memories(project, ListQuery(new_since=since)) == 1

"""Moving and copying memories to another scope: dedup in the target, audited, all or nothing."""

from __future__ import annotations

import pytest

from ltm_desktop.core.errors import Conflict, InvalidInput, NotFound
from ltm_desktop.core.records import GLOBAL_PROJECT_ID, AddStatus
from ltm_desktop.core.service import MemoryService
from tests.conftest import make_draft

pytestmark = pytest.mark.every_backend


def test_move_promotes_to_global_and_leaves_the_original_superseded(
    service: MemoryService, project: str
) -> None:
    source = service.add(project, make_draft("Prefer uv over pip", tags=["python"]), "a").memory
    [done] = service.transfers.transfer_memories(
        {source.id: source.updated_at}, GLOBAL_PROJECT_ID, "gui"
    )
    moved = done.result.memory
    assert done.result.status is AddStatus.CREATED
    assert (moved.project_id, moved.content, moved.tags) == (
        GLOBAL_PROJECT_ID,
        "Prefer uv over pip",
        ("python",),
    )
    assert done.source.disabled
    assert done.source.superseded_by == moved.id
    assert [m.id for m in service.list_memories(GLOBAL_PROJECT_ID)] == [moved.id]
    assert service.list_memories(project) == []
    last = service.history.memory(source.id)[-1]
    assert (last.action, last.actor) == ("moved", "gui")
    assert service.history.memory(moved.id)[0].action == "created"


def test_copy_keeps_the_original_and_dedups_in_the_target(
    service: MemoryService, project: str
) -> None:
    source = service.add(project, make_draft("Tabs are four spaces"), "a").memory
    existing = service.add(GLOBAL_PROJECT_ID, make_draft("Tabs are four spaces"), "a").memory
    [done] = service.transfers.transfer_memories(
        {source.id: None}, GLOBAL_PROJECT_ID, "gui", copy=True
    )
    assert done.result.status is AddStatus.DEDUPLICATED
    assert done.result.memory.id == existing.id
    assert not service.get(source.id).disabled
    assert len(service.list_memories(GLOBAL_PROJECT_ID)) == 1
    last = service.history.memory(source.id)[-1]
    assert last.action == "copied"
    assert last.after == {"to": GLOBAL_PROJECT_ID, "as": existing.id}


def test_a_batch_is_all_or_nothing(service: MemoryService, project: str) -> None:
    first = service.add(project, make_draft("first fact about builds"), "a").memory
    second = service.add(project, make_draft("second fact about deploys"), "a").memory
    service.update(second.id, {"importance": 9}, "agent")  # after the person saw it
    with pytest.raises(Conflict):
        service.transfers.transfer_memories(
            {first.id: first.updated_at, second.id: second.updated_at}, GLOBAL_PROJECT_ID, "gui"
        )
    assert service.list_memories(GLOBAL_PROJECT_ID) == []
    assert not service.get(first.id).disabled
    with pytest.raises(InvalidInput, match="already in that scope"):
        service.transfers.transfer_memories({first.id: None}, project, "gui")
    with pytest.raises(NotFound):
        service.transfers.transfer_memories({first.id: None}, "proj_0123456789abcdef", "gui")

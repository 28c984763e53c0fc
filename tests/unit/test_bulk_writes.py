"""Bulk writes and erases (``MemoryService.write_many``, ``erase_many``): a few transactions
for thousands of memories, each memory still checked against its version and audited on
its own, and a failure part-way that says exactly what was done."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from typing import Any

import pytest

from ltm_desktop.core.bulk.rules import BATCH_SIZE, BulkAction, Change
from ltm_desktop.core.errors import DatabaseBusy, InvalidInput, NotFound, StaleEdit
from ltm_desktop.core.records import AuditAction, ChangeEvent, ListQuery, Memory, MemoryDraft
from ltm_desktop.core.service import MemoryService

MANY = 2 * BATCH_SIZE + 100  # three batches


class Counted:
    """Counts the store's write transactions, the service's change notifications (one per
    ``publish`` call) and its MEMORY.md regenerations; ``fail_at`` makes the n-th
    transaction fail to start (the database locked by another program)."""

    def __init__(self, service: MemoryService, fail_at: int | None = None) -> None:
        self.transactions = self.notifications = self.regenerations = 0
        write, publish, after = (
            service.store.write,
            service.events.publish,
            service.views.after_write,
        )

        def counted_write() -> AbstractContextManager[Any]:
            self.transactions += 1
            if self.transactions == fail_at:
                raise DatabaseBusy("the database is locked by another program")
            return write()

        def counted_publish(events: Iterable[ChangeEvent]) -> None:
            self.notifications += 1
            publish(events)

        def counted_after(changed: Sequence[Memory]) -> None:
            self.regenerations += 1
            after(changed)

        service.store.write = counted_write  # type: ignore[method-assign]
        service.events.publish = counted_publish  # type: ignore[method-assign]
        service.views.after_write = counted_after  # type: ignore[method-assign]


def fill(service: MemoryService, project: str, count: int = MANY) -> list[Memory]:
    drafts = [MemoryDraft(f"Bulk memory {i} about module {i % 31}") for i in range(count)]
    return service.import_memories(project, drafts, "agent")


def versions(memories: list[Memory]) -> dict[str, float | None]:
    return {m.id: m.updated_at for m in memories}


def each(action: BulkAction, memories: list[Memory]) -> list[Change]:
    """The same action on each memory, as of the version read."""
    return [Change(m.id, action, m.updated_at) for m in memories]


def trash_query() -> ListQuery:
    return ListQuery(only_disabled=True, include_expired=True)


def last_action(service: MemoryService, memory_id: str) -> str:
    return str(service.history.memory(memory_id)[-1].action)


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["sqlite", "memory"], indirect=True)
def test_a_bulk_remove_takes_a_transaction_per_batch_and_audits_each_memory(
    service: MemoryService, project: str
) -> None:
    memories = fill(service, project)
    counted = Counted(service)
    events: list[ChangeEvent] = []
    service.events.subscribe(events.append)
    seen: list[tuple[int, int]] = []
    result = service.bulk.write_many(
        [Change(m.id, "remove", m.updated_at) for m in memories],
        "gui",
        progress=lambda done, total: seen.append((done, total)),
    )
    assert len(result.done) == MANY
    assert not result.refused
    assert result.stopped is None
    assert counted.transactions == 3
    assert counted.notifications == 3
    assert counted.regenerations == 3
    assert seen == [(BATCH_SIZE, MANY), (2 * BATCH_SIZE, MANY), (MANY, MANY)]
    assert sorted(e.memory_id for e in events) == sorted(m.id for m in memories)
    assert {e.action for e in events} == {"removed"}
    assert all(after.disabled and not before.disabled for before, after in result.done)
    assert [c.memory_id for c in result.changes] == [m.id for m in memories]
    for memory in memories[:: BATCH_SIZE // 5]:
        assert last_action(service, memory.id) == AuditAction.REMOVED
    assert service.count_memories(project) == 0

    restored = service.bulk.write_many(each("restore", [after for _, after in result.done]), "gui")
    assert len(restored.done) == MANY
    assert service.count_memories(project) == MANY


def test_a_memory_changed_since_it_was_seen_is_refused_alone(
    service: MemoryService, project: str
) -> None:
    memories = fill(service, project, 5)
    moved = service.update(memories[2].id, {"importance": 9}, "agent")
    gone = memories[4].id
    service.remove(gone, "agent")
    service.eraser.erase(gone, "agent")
    result = service.bulk.write_many(each("remove", memories), "gui")
    assert [after.id for _, after in result.done] == [m.id for m in memories[:2]] + [memories[3].id]
    refused = {change.memory_id: exc for change, exc in result.refused}
    stale = refused[moved.id]
    assert isinstance(stale, StaleEdit)
    assert stale.current == service.get(moved.id)  # as stored, to show the person
    assert isinstance(refused[gone], NotFound)
    assert not service.get(moved.id).disabled  # nothing written to it
    assert last_action(service, moved.id) == AuditAction.UPDATED


def test_keep_and_its_undo_in_bulk(service: MemoryService, project: str) -> None:
    memories = fill(service, project, 3)
    kept = service.bulk.write_many(each("keep", memories), "gui")
    assert all(after.reviewed_at is not None for _, after in kept.done)
    undo = [
        Change(after.id, "unreview", after.updated_at, {"reviewed_at": None, "review_state": None})
        for _, after in kept.done
    ]
    back = service.bulk.write_many(undo, "gui")
    assert all(after.reviewed_at is None for _, after in back.done)
    bad = service.bulk.write_many(
        [Change(memories[0].id, "unreview", None, {"review_state": "x"})], "gui"
    )
    assert isinstance(bad.refused[0][1], InvalidInput)


def test_a_storage_error_part_way_keeps_what_was_done_and_says_what_was_not(
    service: MemoryService, project: str
) -> None:
    memories = fill(service, project)
    Counted(service, fail_at=2)
    result = service.bulk.write_many(each("remove", memories), "gui")
    assert isinstance(result.stopped, DatabaseBusy)
    assert len(result.done) == BATCH_SIZE
    assert [c.memory_id for c in result.not_done] == [m.id for m in memories[BATCH_SIZE:]]
    assert service.count_memories(project) == MANY - BATCH_SIZE  # the first batch stays


def test_a_storage_error_before_anything_was_written_is_raised(
    service: MemoryService, project: str
) -> None:
    memories = fill(service, project, 3)
    Counted(service, fail_at=1)
    with pytest.raises(DatabaseBusy):
        service.bulk.write_many(each("remove", memories), "gui")
    assert service.count_memories(project) == 3


def trashed(service: MemoryService, project: str, count: int) -> list[str]:
    memories = fill(service, project, count)
    return [
        after.id for _, after in service.bulk.write_many(each("remove", memories), "agent").done
    ]


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["sqlite", "memory"], indirect=True)
def test_erase_many_erases_in_batches_and_refuses_what_is_not_in_the_trash(
    service: MemoryService, project: str
) -> None:
    ids = trashed(service, project, MANY)
    service.restore(ids[7], "agent")  # taken back out meanwhile
    counted = Counted(service)
    erased = service.eraser.erase_many(ids, "gui")
    assert len(erased.ids) == MANY - 1
    assert [memory_id for memory_id, _ in erased.refused] == [ids[7]]
    assert erased.stopped is None
    assert counted.transactions == 3
    assert counted.notifications == 3
    assert not service.get(ids[7]).disabled
    with pytest.raises(NotFound):
        service.get(ids[0])
    assert last_action(service, ids[0]) == AuditAction.ERASED


def test_erase_many_refuses_a_list_holding_a_non_id_before_erasing_anything(
    service: MemoryService, project: str
) -> None:
    ids = trashed(service, project, 3)
    with pytest.raises(InvalidInput, match="id must be a string"):
        service.eraser.erase_many([*ids, None], "gui")  # type: ignore[list-item]
    assert service.count_memories(project, trash_query()) == 3


@pytest.mark.slow
def test_erase_many_stopped_part_way_says_how_far_it_got(
    service: MemoryService, project: str
) -> None:
    ids = trashed(service, project, MANY)
    Counted(service, fail_at=3)
    erased = service.eraser.erase_many(ids, "gui")
    assert isinstance(erased.stopped, DatabaseBusy)
    assert list(erased.ids) == ids[: 2 * BATCH_SIZE]
    assert list(erased.not_done) == ids[2 * BATCH_SIZE :]
    assert service.count_memories(project, trash_query()) == MANY - 2 * BATCH_SIZE


@pytest.mark.parametrize("backend", ["sqlite", "memory"], indirect=True)
def test_tags_are_added_and_removed_per_memory_against_its_version(
    service: MemoryService, project: str
) -> None:
    """``add_tags`` / ``remove_tags`` edit each memory's own tags (compare-and-swap per
    memory, as every bulk change): the others' tags are kept."""
    memories = fill(service, project, 3)
    first = service.update(memories[0].id, {"tags": ["deploy", "old"]}, "agent")
    second = service.update(memories[1].id, {"tags": ["ci"]}, "agent")
    seen = {first.id: first.updated_at, second.id: second.updated_at}
    moved = service.update(memories[2].id, {"tags": ["x"]}, "agent")
    values = {"add_tags": ["Urgent", "ci"], "remove_tags": ["old"]}
    changes = [Change(i, "update", v, values) for i, v in seen.items()]
    changes.append(Change(moved.id, "update", memories[2].updated_at, values))  # stale
    result = service.bulk.write_many(changes, "gui")
    assert service.get(first.id).tags == ("deploy", "urgent", "ci")
    assert service.get(second.id).tags == ("ci", "urgent")
    assert [c.memory_id for c, _ in result.refused] == [moved.id]
    assert isinstance(result.refused[0][1], StaleEdit)
    assert service.get(moved.id).tags == ("x",)
    both = {"tags": ["a"], "add_tags": ["b"]}
    bad = service.bulk.write_many([Change(first.id, "update", None, both)], "gui")
    assert isinstance(bad.refused[0][1], InvalidInput)

"""Bulk actions on a filter (``core.bulk_selection``): the ids are found by the core from
the scope's filters, the writes run in chunks that can be cancelled between, and a failure
part-way says what was done."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from ltm_desktop.core.bulk.rules import BulkResult, Change
from ltm_desktop.core.bulk.selection import (
    FilterSelection,
    ids_matching,
    resolve,
    transfer_chunked,
    write_chunked,
)
from ltm_desktop.core.errors import DatabaseBusy
from ltm_desktop.core.records import ListQuery, Memory, MemoryDraft
from ltm_desktop.core.service import MemoryService

MANY = 1_250


def fill(service: MemoryService, project: str, count: int, **draft: Any) -> list[Memory]:
    drafts = [
        MemoryDraft(f"Selected memory {i} about part {i % 29}", **draft) for i in range(count)
    ]
    return service.import_memories(project, drafts, "agent")


def removes(versions: dict[str, float]) -> list[Change]:
    return [Change(i, "remove", v) for i, v in versions.items()]


def test_ids_are_paged_in_creation_order_to_the_end(service: MemoryService, project: str) -> None:
    memories = fill(service, project, 25)
    seen: list[str] = []
    start: int | None = 0
    while start is not None:
        pairs, start = ids_matching(service, project, ListQuery(), start, 10)
        seen += [i for i, _ in pairs]
    assert seen == [m.id for m in memories]


def test_a_selection_is_its_filters_less_the_excluded(service: MemoryService, project: str) -> None:
    skills = fill(service, project, 30, category="skill")
    fill(service, project, 20, category="task")
    removed = skills[0]
    service.remove(removed.id, "agent")
    selection = FilterSelection(project, ListQuery(category="skill"), frozenset({skills[1].id}))
    found = resolve(service, selection, page=7)
    assert list(found) == [m.id for m in skills[2:]]
    assert found[skills[2].id] == skills[2].updated_at
    with_removed = resolve(service, selection.narrowed(include_disabled=True))
    assert removed.id in with_removed


def test_writes_run_in_chunks_and_stop_when_cancelled(service: MemoryService, project: str) -> None:
    fill(service, project, MANY)
    versions = resolve(service, FilterSelection(project))
    reports: list[tuple[int, int]] = []
    out = write_chunked(
        service,
        removes(versions),
        "gui",
        chunk=500,
        progress=lambda done, of: reports.append((done, of)),
        cancelled=lambda: len(reports) >= 2,
    )
    assert reports == [(500, MANY), (1000, MANY)]
    assert len(out.result.done) == 1000
    assert len(out.cancelled) == MANY - 1000
    assert service.count_memories(project) == MANY - 1000


@pytest.mark.slow
def test_a_storage_error_after_a_chunk_is_reported_not_raised(
    service: MemoryService, project: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    fill(service, project, MANY)
    versions = resolve(service, FilterSelection(project))
    write_many, calls = service.bulk.write_many, []

    def failing(changes: Sequence[Change], actor: str, **kw: Any) -> BulkResult:
        calls.append(len(changes))
        if len(calls) == 2:
            raise DatabaseBusy("the database is locked by another program")
        return write_many(changes, actor, **kw)

    monkeypatch.setattr(service.bulk, "write_many", failing)
    out = write_chunked(service, removes(versions), "gui", chunk=500)
    assert len(out.result.done) == 500
    assert isinstance(out.result.stopped, DatabaseBusy)
    assert len(out.result.not_done) == MANY - 500
    calls.clear()
    calls.append(0)  # the next call is "the second": it fails before anything is done
    with pytest.raises(DatabaseBusy):
        write_chunked(service, removes(resolve(service, FilterSelection(project))), "gui")


@pytest.mark.slow
def test_a_transfer_moves_every_memory_in_chunks(service: MemoryService, project: str) -> None:
    fill(service, project, 620)
    other = service.resolve_scope(cwd="/home/dev/src/other", register=True)
    versions = resolve(service, FilterSelection(project))
    done: list[tuple[int, int]] = []
    out = transfer_chunked(
        service,
        versions,
        other,
        "gui",
        copy=False,
        chunk=300,
        progress=lambda d, o: done.append((d, o)),
    )
    assert len(out.done) == 620
    assert done == [(300, 620), (600, 620), (620, 620)]
    assert service.count_memories(other) > 0  # (near-duplicates among them supersede)
    assert service.count_memories(project) == 0

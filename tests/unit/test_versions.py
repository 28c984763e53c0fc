"""Compare-and-swap on ``updated_at``: a write based on an old read is refused, atomically."""

from __future__ import annotations

import random
import threading
from pathlib import Path

import pytest

from ltm_desktop.api.serialize import iso, parse_iso
from ltm_desktop.core.errors import Conflict, InvalidInput, StaleEdit
from ltm_desktop.core.records import AuditAction
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.versions import millis, next_version, same_version
from tests.conftest import START, ServiceFactory, make_draft

pytestmark = pytest.mark.every_backend  # the core's rules, whatever stores them


def actions(service: MemoryService, memory_id: str) -> list[AuditAction]:
    return [e.action for e in service.history.memory(memory_id)]


def test_millis_is_what_the_api_prints() -> None:
    rng = random.Random(7)
    samples = [rng.uniform(0, 4e9) for _ in range(20_000)]
    samples += [START + n / 1000 for n in range(2000)] + [START + 0.9995, START + 0.0005]
    for timestamp in samples:
        text = iso(timestamp)
        assert text is not None
        parsed = parse_iso(text)
        assert parsed is not None, text
        assert millis(parsed) == millis(timestamp), text
        assert iso(parsed) == text
        assert same_version(timestamp, parsed)


@pytest.mark.parametrize(
    "text",
    [
        "2026-02-30T10:00:00.000Z",
        "2026-11-30T15:56:59.84Z",
        "2026-11-30 15:56:59.843Z",
        "2026-11-30T15:56:59.843",
        "2026-11-30T24:00:00.000Z",
        "0000-01-01T00:00:00.000Z",
        "１２３４-11-30T15:56:59.843Z",
        "yesterday",
    ],
)
def test_parse_iso_takes_only_the_shape_the_api_writes(text: str) -> None:
    assert parse_iso(text) is None


def test_next_version_always_moves_a_millisecond() -> None:
    assert next_version(START, START + 5) == START + 5
    assert millis(next_version(START, START)) == millis(START) + 1
    assert millis(next_version(START, START + 0.0004)) == millis(START) + 1
    assert millis(next_version(START, START - 60)) == millis(START) + 1  # clock stepped back


def test_a_stale_update_is_refused_and_changes_nothing(
    service: MemoryService, project: str
) -> None:
    read = service.add(project, make_draft("Deploys go out on Tuesdays"), "agent-a").memory
    theirs = service.update(
        read.id, {"importance": 8}, "agent-b", expected_updated_at=read.updated_at
    )
    assert theirs.updated_at > read.updated_at
    with pytest.raises(StaleEdit) as info:
        service.update(read.id, {"importance": 2}, "agent-a", expected_updated_at=read.updated_at)
    assert info.value.reason == "stale"
    assert info.value.current == theirs  # what is stored now, to show or retry with
    assert service.get(read.id) == theirs
    assert actions(service, read.id) == [AuditAction.CREATED, AuditAction.UPDATED]
    mine = service.update(
        read.id, {"importance": 2}, "agent-a", expected_updated_at=theirs.updated_at
    )
    assert mine.importance == 2


def test_the_check_is_at_the_precision_the_api_shows(service: MemoryService, project: str) -> None:
    read = service.add(project, make_draft("Cache keys include the tenant"), "agent").memory
    seen = parse_iso(iso(read.updated_at) or "")
    assert seen is not None
    assert seen != read.updated_at
    service.update(read.id, {"importance": 7}, "agent", expected_updated_at=seen)  # ...and fits
    with pytest.raises(StaleEdit):
        service.update(read.id, {"importance": 6}, "agent", expected_updated_at=seen)


def test_no_check_without_an_expected_version(service: MemoryService, project: str) -> None:
    memory = service.add(project, make_draft("Last write wins when not asked"), "agent").memory
    service.update(memory.id, {"importance": 8}, "agent-b")
    assert service.update(memory.id, {"importance": 2}, "agent-a").importance == 2


@pytest.mark.parametrize("bad", ["2026-11-30T15:56:59.843Z", True, float("nan")])
def test_a_version_that_is_not_a_timestamp_is_invalid(
    service: MemoryService, project: str, bad: object
) -> None:
    memory = service.add(project, make_draft("Typed versions only"), "agent").memory
    with pytest.raises(InvalidInput) as info:
        service.update(memory.id, {"importance": 1}, "agent", expected_updated_at=bad)  # type: ignore[arg-type]
    assert info.value.field == "expected_updated_at"


@pytest.mark.parametrize("check", [True, False])
def test_updating_a_removed_memory_is_a_conflict(
    service: MemoryService, project: str, check: bool
) -> None:
    memory = service.add(project, make_draft("Removed while I was reading"), "agent-a").memory
    removed = service.remove(memory.id, "agent-b")
    assert removed.updated_at == memory.updated_at  # removing does not move the version...
    expected = memory.updated_at if check else None
    with pytest.raises(Conflict) as info:  # ...but the memory is no longer there to edit
        service.update(memory.id, {"importance": 9}, "agent-a", expected_updated_at=expected)
    assert info.value.reason == "removed"
    assert info.value.current == removed
    assert service.get(memory.id) == removed
    assert actions(service, memory.id) == [AuditAction.CREATED, AuditAction.REMOVED]


def test_remove_and_restore_check_the_version(service: MemoryService, project: str) -> None:
    read = service.add(project, make_draft("Queues drain at midnight"), "agent-a").memory
    edited = service.update(read.id, {"importance": 9}, "agent-b")
    with pytest.raises(StaleEdit):
        service.remove(read.id, "agent-a", expected_updated_at=read.updated_at)
    assert not service.get(read.id).disabled
    removed = service.remove(read.id, "agent-a", expected_updated_at=edited.updated_at)
    assert removed.disabled
    with pytest.raises(StaleEdit):
        service.restore(read.id, "agent-a", expected_updated_at=read.updated_at)
    assert service.get(read.id).disabled
    assert not service.restore(read.id, "agent-a", expected_updated_at=edited.updated_at).disabled
    with pytest.raises(Conflict) as info:
        service.restore(read.id, "agent-a", expected_updated_at=edited.updated_at)
    assert info.value.reason == "already_active"
    assert info.value.current is not None
    assert not info.value.current.disabled


def test_keeping_a_stale_candidate_checks_the_version(service: MemoryService, project: str) -> None:
    read = service.add(project, make_draft("An old low note", importance=1), "agent").memory
    edited = service.update(read.id, {"importance": 2}, "agent")
    with pytest.raises(StaleEdit):
        service.reviews.mark(read.id, "gui", expected_updated_at=read.updated_at)
    assert service.get(read.id).reviewed_at is None
    kept = service.reviews.mark(read.id, "gui", expected_updated_at=edited.updated_at)
    assert kept.reviewed_at is not None


def test_reinforcement_does_not_move_the_version(service: MemoryService, project: str) -> None:
    read = service.add(project, make_draft("Kafka topics use dotted names"), "agent").memory
    assert [h.memory.id for h in service.search.query(project, "kafka", reinforce=True)] == [
        read.id
    ]
    service._uses.flush()  # the use count is written, as after 0.25 s
    used = service.get(read.id)
    assert (used.use_count, used.updated_at) == (1, read.updated_at)
    service.update(read.id, {"importance": 7}, "agent", expected_updated_at=read.updated_at)


def test_a_conflict_shows_use_counts_not_yet_written(service: MemoryService, project: str) -> None:
    read = service.add(project, make_draft("Redis runs on port 6380"), "agent").memory
    service.update(read.id, {"importance": 8}, "other")
    service.search.query(project, "redis", reinforce=True)
    with pytest.raises(StaleEdit) as info:
        service.update(read.id, {"importance": 1}, "agent", expected_updated_at=read.updated_at)
    assert info.value.current is not None
    assert info.value.current.use_count == 1


def test_deduplication_is_a_write_and_moves_the_version(
    service: MemoryService, project: str
) -> None:
    read = service.add(project, make_draft("Logs rotate daily"), "agent-a").memory
    service.add(project, make_draft("logs   ROTATE daily"), "agent-b")
    with pytest.raises(StaleEdit):
        service.update(read.id, {"importance": 1}, "agent-a", expected_updated_at=read.updated_at)


def test_writes_in_one_millisecond_still_get_distinct_versions(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    service = make_service(tmp_path / "frozen", clock=lambda: START)  # a clock that never moves
    project = service.resolve_scope(project_id="global")
    first = service.add(project, make_draft("Frozen clock fact"), "agent").memory
    second = service.update(first.id, {"importance": 6}, "agent")
    third = service.update(first.id, {"importance": 7}, "agent")
    stamps = [iso(m.updated_at) for m in (first, second, third)]
    assert len(set(stamps)) == 3, stamps
    with pytest.raises(StaleEdit):
        service.update(first.id, {"importance": 1}, "agent", expected_updated_at=second.updated_at)


def test_racing_writers_on_one_version_exactly_one_wins(
    service: MemoryService, project: str
) -> None:
    read = service.add(project, make_draft("Only one of us may write this"), "agent").memory
    results: list[str] = []
    start = threading.Barrier(8)

    def write(n: int) -> None:
        start.wait()
        try:
            service.update(
                read.id, {"importance": n}, f"agent-{n}", expected_updated_at=read.updated_at
            )
            results.append("ok")
        except StaleEdit:
            results.append("conflict")

    threads = [threading.Thread(target=write, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == ["conflict"] * 7 + ["ok"]
    assert actions(service, read.id).count(AuditAction.UPDATED) == 1

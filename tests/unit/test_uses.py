"""Agent uses are counted at once for this process and written in batches."""

from __future__ import annotations

from pathlib import Path

import pytest

from ltm_desktop.core.records import Memory
from ltm_desktop.core.uses import UseCounter
from tests.conftest import ServiceFactory, make_draft

pytestmark = pytest.mark.every_backend


def test_counts_are_visible_at_once_and_written_by_the_flush(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    service = make_service(tmp_path / "d")
    other = make_service(tmp_path / "d")  # another process's view of the same file
    project = service.resolve_scope(cwd="/srv/app", register=True)
    memory = service.add(project, make_draft("uses are batched"), "a").memory
    for _ in range(3):
        service.search.query(project, "batched", reinforce=True)
    assert service.get(memory.id).use_count == 3
    assert service.list_memories(project)[0].use_count == 3
    service._uses.flush()
    stored = other.get(memory.id)
    assert stored.use_count == 3
    assert stored.last_used_at is not None


def test_close_writes_what_is_pending(make_service: ServiceFactory, tmp_path: Path) -> None:
    service = make_service(tmp_path / "d")
    project = service.resolve_scope(cwd="/srv/app", register=True)
    memory = service.add(project, make_draft("counted before closing"), "a").memory
    service.search.query(project, "counted", reinforce=True)
    service.close()
    assert make_service(tmp_path / "d").get(memory.id).use_count == 1


def test_close_goes_on_when_an_earlier_step_fails(
    make_service: ServiceFactory, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A backfill that fails to stop must not leave the use counts unwritten (close used
    to give up at the first failing step, and blamed the use counts whatever it was)."""
    service = make_service(tmp_path / "d")
    project = service.resolve_scope(cwd="/srv/app", register=True)
    memory = service.add(project, make_draft("counted before a bad close"), "a").memory
    service.search.query(project, "counted", reinforce=True)

    def broken_close() -> None:
        raise RuntimeError("the backfill thread is stuck")

    service.backfill.close = broken_close  # type: ignore[method-assign]
    service.close()
    assert make_service(tmp_path / "d").get(memory.id).use_count == 1
    assert "could not stop the vector backfill at close: the backfill thread is stuck" in (
        caplog.text
    )
    assert "use counts" not in caplog.text


def test_a_failed_write_keeps_the_counts() -> None:
    attempts: list[dict[str, tuple[int, float]]] = []

    def write(uses: dict[str, tuple[int, float]]) -> None:
        attempts.append(dict(uses))
        if len(attempts) == 1:
            raise OSError("disk full")

    counter = UseCounter(write)
    counter.add(["m1", "m1", "m2"], 10.0)
    with pytest.raises(OSError, match="disk full"):
        counter.flush()
    counter.add(["m1"], 11.0)
    counter.flush()
    assert attempts[-1] == {"m1": (3, 11.0), "m2": (1, 10.0)}
    counter.close()


def test_overlay_leaves_unused_memories_alone() -> None:
    counter = UseCounter(lambda uses: None)
    memory = Memory(
        id="m9",
        project_id="global",
        title="t",
        content="c",
        category="knowledge",  # type: ignore[arg-type]
        importance=5,
        tags=(),
        signature="",
        created_at=0,
        updated_at=0,
        last_used_at=None,
        use_count=4,
        ttl_days=None,
        disabled=False,
        source="a",
        superseded_by=None,
    )
    assert counter.overlay(memory) is memory
    counter.add(["m9"], 5.0)
    assert (counter.overlay(memory).use_count, counter.overlay(memory).last_used_at) == (5, 5.0)


def test_write_results_show_the_uses_not_yet_written(
    make_service: ServiceFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An update, remove, restore or deduplicating add answers with the same counters a
    read would, even before the batch reaches the database."""
    service = make_service(tmp_path / "d")
    project = service.resolve_scope(cwd="/srv/app", register=True)
    memory = service.add(project, make_draft("counters in write results"), "a").memory

    def not_yet(uses: object) -> None:
        raise OSError("the batch has not been written yet")

    monkeypatch.setattr(service._uses, "_write", not_yet)
    for _ in range(3):
        service.search.query(project, "counters", reinforce=True)
    assert service.update(memory.id, {"importance": 7}, "a").use_count == 3
    assert service.remove(memory.id, "a").use_count == 3
    assert service.restore(memory.id, "a").use_count == 3
    again = service.add(project, make_draft("counters in write results"), "a")
    assert again.memory.use_count == 4  # a re-added text counts one more use
    assert again.memory.last_used_at is not None

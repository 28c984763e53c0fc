"""Repeated searches are served from a cache that never returns stale results."""

from __future__ import annotations

from pathlib import Path

from ltm_desktop.core.service import MemoryService
from tests.conftest import FakeClock, ServiceFactory, make_draft


def ids(service: MemoryService, project: str, text: str, **kwargs: object) -> list[str]:
    return [h.memory.id for h in service.search(project, text, **kwargs)]  # type: ignore[arg-type]


def test_repeated_search_has_fresh_counters(service: MemoryService, project: str) -> None:
    memory = service.add(project, make_draft("cached answer about redis"), "a").memory
    for expected_uses in (1, 2, 3):
        [hit] = service.search(project, "redis", reinforce=True)
        assert hit.memory.use_count == expected_uses
        assert service.get(memory.id).use_count == expected_uses


def test_a_write_invalidates(service: MemoryService, project: str) -> None:
    first = service.add(project, make_draft("kafka notes one", title="One"), "a").memory
    assert ids(service, project, "kafka") == [first.id]
    second = service.add(
        project, make_draft("kafka notes two, longer and newer", title="Two"), "a"
    ).memory
    assert set(ids(service, project, "kafka")) == {first.id, second.id}
    service.update(second.id, {"content": "now about rabbitmq"}, "gui")
    assert ids(service, project, "kafka") == [first.id]
    service.remove(first.id, "gui")
    assert ids(service, project, "kafka") == []


def test_another_process_writing_invalidates(make_service: ServiceFactory, tmp_path: Path) -> None:
    mine = make_service(tmp_path / "shared")
    theirs = make_service(tmp_path / "shared")
    project = mine.resolve_scope(cwd="/srv/app", register=True)
    memory = mine.add(project, make_draft("grpc deadlines are five seconds"), "a").memory
    assert ids(mine, project, "grpc") == [memory.id]
    theirs.remove(memory.id, "gui")
    assert ids(mine, project, "grpc") == []
    added = theirs.add(project, make_draft("grpc retries use backoff"), "b").memory
    assert ids(mine, project, "grpc") == [added.id]


def test_expiry_between_searches_is_noticed(
    service: MemoryService, project: str, clock: FakeClock
) -> None:
    short = service.add(project, make_draft("vpn token expires soon", ttl_days=1), "a").memory
    assert ids(service, project, "vpn") == [short.id]
    clock.advance(days=2)
    assert ids(service, project, "vpn") == []

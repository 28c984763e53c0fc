"""Repeated searches are served from a cache that never returns stale results."""

from __future__ import annotations

from pathlib import Path

import pytest

from ltm_desktop.core.errors import InvalidInput
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.config import Settings
from tests.conftest import FakeClock, ServiceFactory, make_draft
from tests.doubles.embedders import WordHashEmbedder

pytestmark = pytest.mark.every_backend


def ids(service: MemoryService, project: str, text: str, **kwargs: object) -> list[str]:
    return [h.memory.id for h in service.search.query(project, text, **kwargs)]  # type: ignore[arg-type]


def test_repeated_search_has_fresh_counters(service: MemoryService, project: str) -> None:
    memory = service.add(project, make_draft("cached answer about redis"), "a").memory
    for expected_uses in (1, 2, 3):
        [hit] = service.search.query(project, "redis", reinforce=True)
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


def test_search_if_cached_answers_only_what_the_cache_holds(
    service: MemoryService, project: str
) -> None:
    memory = service.add(project, make_draft("terraform state lives in s3"), "a").memory
    assert service.search.cached(project, "terraform") is None  # never searched
    service.search.query(project, "terraform", reinforce=True)
    [searched] = service.search.query(project, "terraform")  # the score weighs that use
    [cached] = service.search.cached(project, "terraform", reinforce=True) or []
    assert (cached.memory.id, cached.snippet) == (searched.memory.id, searched.snippet)
    assert cached.score == pytest.approx(searched.score)  # recent uses fade as time passes
    assert cached.memory.use_count == 2  # reinforced like search, counters fresh
    assert service.search.cached(project, "terraform", limit=6) is None  # another limit
    service.update(memory.id, {"importance": 9}, "gui")
    assert service.search.cached(project, "terraform") is None  # a write since


def test_search_if_cached_refuses_bad_input_like_search(
    service: MemoryService, project: str
) -> None:
    for bad in ({"limit": 0}, {"limit": "5"}, {"limit": 101}):
        with pytest.raises(InvalidInput):
            service.search.cached(project, "x", **bad)
    with pytest.raises(InvalidInput):
        service.search.cached("not a project id", "x")


def test_search_if_cached_answers_with_an_embedder_without_embedding_again(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    embedder = WordHashEmbedder()
    service = make_service(tmp_path / "e", embedder=embedder)
    project = service.resolve_scope(cwd="/srv/e", register=True)
    service.add(project, make_draft("helm charts live in deploy/"), "a")
    first = service.search.query(project, "helm")
    calls = embedder.calls
    again = service.search.cached(project, "helm")
    assert again is not None
    assert [h.memory.id for h in again] == [h.memory.id for h in first]
    assert embedder.calls == calls  # the cached answer needs no vector


def test_the_cache_can_be_turned_off_in_settings(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    service = make_service(tmp_path / "off", Settings(search_cache_entries=0))
    project = service.resolve_scope(cwd="/srv/off", register=True)
    service.add(project, make_draft("nomad jobs run on the batch cluster"), "a")
    assert len(service.search.query(project, "nomad")) == 1
    assert service.search.cached(project, "nomad") is None  # nothing was kept


def test_vectors_another_worker_stores_invalidate(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    """``serve --workers N``: one worker's backfill stores a vector (no audit event); a
    search cached in another worker before it must not stay without the hit it gives."""
    synonyms = {"failures": "crash", "logged": "report", "reported": "report"}
    reader = make_service(tmp_path / "d", embedder=WordHashEmbedder(synonyms))
    writer = make_service(tmp_path / "d", embedder=WordHashEmbedder(synonyms))
    project = reader.resolve_scope(cwd="/srv/shop", register=True)
    writer.import_memories(project, [make_draft("Crashes are reported to Sentry")], "agent")
    assert reader.search.query(project, "failures logged") == []  # no vector yet: cached empty
    assert writer.backfill.run_once() == 1  # the other worker's backfill
    [hit] = reader.search.query(project, "failures logged")
    assert hit.memory.content == "Crashes are reported to Sentry"

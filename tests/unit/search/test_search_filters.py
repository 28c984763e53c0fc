"""A person's search combines with the list's filters: category, tag, removed, expired."""

from __future__ import annotations

import pytest

from ltm_desktop.core.records import SearchFilter
from ltm_desktop.core.service import MemoryService
from tests.conftest import FakeClock, make_draft
from tests.doubles.embedders import WordHashEmbedder

pytestmark = pytest.mark.every_backend


def contents(service: MemoryService, project: str, text: str, where: SearchFilter) -> list[str]:
    hits = service.search.query(project, text, limit=20, where=where)
    return [h.memory.content for h in hits]


def test_category_and_tag_narrow_the_hits(service: MemoryService, project: str) -> None:
    service.add(project, make_draft("deploy with make deploy", category="skill"), "a")
    service.add(project, make_draft("deploy windows are on Fridays", category="knowledge"), "a")
    service.add(
        project, make_draft("deploy needs the VPN", category="knowledge", tags=["ops"]), "a"
    )
    assert len(contents(service, project, "deploy", SearchFilter())) == 3
    assert contents(service, project, "deploy", SearchFilter(category="skill")) == [
        "deploy with make deploy"
    ]
    assert contents(service, project, "deploy", SearchFilter(tag="ops")) == ["deploy needs the VPN"]
    assert contents(service, project, "deploy", SearchFilter(category="skill", tag="ops")) == []


def test_removed_and_expired_memories_only_when_asked(
    service: MemoryService, project: str, clock: FakeClock
) -> None:
    live = service.add(project, make_draft("redis runs on port 6380"), "a").memory
    gone = service.add(project, make_draft("redis cluster was retired"), "a").memory
    service.add(project, make_draft("redis cache warmed nightly", ttl_days=1), "a")
    service.remove(gone.id, "gui")
    clock.advance(days=2)
    assert contents(service, project, "redis", SearchFilter()) == [live.content]
    removed = contents(service, project, "redis", SearchFilter(include_disabled=True))
    assert sorted(removed) == sorted([live.content, gone.content])
    assert removed[0] == live.content  # an active memory ranks before a removed one
    expired = contents(service, project, "redis", SearchFilter(include_expired=True))
    assert sorted(expired) == sorted([live.content, "redis cache warmed nightly"])
    assert contents(service, project, "retired", SearchFilter(include_disabled=True)) == [
        gone.content
    ]
    assert contents(service, project, "redis -retired", SearchFilter(include_disabled=True)) == [
        live.content
    ]


def test_search_by_meaning_keeps_to_the_filter(
    make_service: object, project: str, clock: FakeClock
) -> None:
    service = make_service(embedder=WordHashEmbedder())  # type: ignore[operator]
    project = service.resolve_scope(cwd="/home/dev/src/shop", register=True)
    service.add(project, make_draft("database backups run at night", category="skill"), "a")
    service.add(project, make_draft("database backups are kept a month"), "a")
    hits = contents(service, project, "database", SearchFilter(category="skill"))
    assert hits == ["database backups run at night"]


def test_new_keeps_to_what_agents_created_since_the_last_look(
    service: MemoryService, project: str, clock: FakeClock
) -> None:
    """The list's "New" filter holds for a search too, by words and by meaning."""
    service.add(project, make_draft("nginx config lives in ops/nginx"), "claude-code")
    clock.advance(days=1)
    looked = clock()
    clock.advance(seconds=60)
    service.add(project, make_draft("nginx reloads with make reload"), "codex-cli")
    service.add(project, make_draft("nginx logs rotate weekly"), "gui")  # the person's own
    assert len(contents(service, project, "nginx", SearchFilter())) == 3
    assert contents(service, project, "nginx", SearchFilter(new_since=looked)) == [
        "nginx reloads with make reload"
    ]


def test_new_holds_for_search_by_meaning(make_service: object, clock: FakeClock) -> None:
    service = make_service(embedder=WordHashEmbedder())  # type: ignore[operator]
    project = service.resolve_scope(cwd="/home/dev/src/shop", register=True)
    service.add(project, make_draft("database backups run at night"), "claude-code")
    looked = clock()
    clock.advance(seconds=60)
    service.add(project, make_draft("database backups are kept a month"), "claude-code")
    hits = contents(service, project, "database", SearchFilter(new_since=looked))
    assert hits == ["database backups are kept a month"]

"""An erased memory leaves every process's in-memory index (token sets, vectors): a pk
SQLite gives again, in this scope or another, is never taken for the erased memory, and a
change after an erase is never one the readers think they have seen."""

from __future__ import annotations

from pathlib import Path

import pytest

from ltm_desktop.core.records import MATCHED_MEANING, AddStatus
from ltm_desktop.core.service import MemoryService
from tests.conftest import ServiceFactory, make_draft
from tests.doubles.embedders import WordHashEmbedder

pytestmark = pytest.mark.every_backend

SYNONYMS = {"failures": "crash", "logged": "report", "reported": "report", "crashes": "crash"}
QUESTION = "where do program failures get logged"
DEPLOY = "Deploy the billing service with helm upgrade billing chart values production yaml"


def meaning(make_service: ServiceFactory, data: Path) -> MemoryService:
    return make_service(data, embedder=WordHashEmbedder(SYNONYMS), search_cache_size=0)


def erase(service: MemoryService, memory_id: str) -> None:
    service.remove(memory_id, "gui")
    service.eraser.erase(memory_id, "gui")


def scopes(service: MemoryService) -> tuple[str, str]:
    return (
        service.resolve_scope(cwd="/home/dev/src/project-a", register=True),
        service.resolve_scope(cwd="/home/dev/src/project-b", register=True),
    )


def test_a_search_never_returns_another_scopes_memory_after_an_erase(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    service = meaning(make_service, tmp_path / "data")
    a, b = scopes(service)
    service.add(a, make_draft("Use black to format Python code"), "agent")
    crashes = service.add(a, make_draft("Crashes are reported to Sentry"), "agent").memory
    service.backfill.run_once()
    assert [h.memory.id for h in service.search.query(a, QUESTION, include_global=False)] == [
        crashes.id
    ]
    erase(service, crashes.id)  # the scope's newest: SQLite may give its pk again
    service.add(b, make_draft("Project B: crashes are reported to the acquisition team"), "x")
    service.backfill.run_once()
    hits = service.search.query(a, QUESTION, include_global=False)
    assert [h.memory.project_id for h in hits] == []


def test_a_memory_added_after_an_erase_is_found_by_meaning_at_once(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    service = meaning(make_service, tmp_path / "data")
    a, _ = scopes(service)
    for text in ("Use black to format Python code", "Type check the code with mypy"):
        service.add(a, make_draft(text), "agent")
    newest = service.add(a, make_draft("Pin dependencies with uv"), "agent").memory
    service.backfill.run_once()
    service.search.query(a, QUESTION, include_global=False)  # the scope's vectors are loaded
    erase(service, newest.id)
    crashes = service.add(a, make_draft("Crashes are reported to Sentry"), "agent").memory
    service.backfill.run_once()
    hits = service.search.query(a, QUESTION, include_global=False)
    assert (crashes.id, MATCHED_MEANING) in [(h.memory.id, h.matched) for h in hits]


def test_a_write_in_one_scope_never_supersedes_another_scopes_memory(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    """Two processes on one database: the first has scope A's token sets loaded; the
    second erases A's newest memories and adds to B (the pk may come again); the first
    then writes a near-duplicate of the erased text to A."""
    first = make_service(tmp_path / "data", search_cache_size=0)
    second = make_service(tmp_path / "data", search_cache_size=0)
    a, b = scopes(first)
    first.add(a, make_draft("Use black to format Python code"), "agent")
    gone = first.add(a, make_draft(DEPLOY), "agent").memory
    last = first.add(a, make_draft("Lint with ruff check dot"), "agent").memory
    for memory in (last, gone):
        erase(second, memory.id)
    elsewhere = second.add(b, make_draft(DEPLOY), "agent").memory

    added = first.add(a, make_draft(DEPLOY + " now"), "agent")
    assert added.status is AddStatus.CREATED
    assert added.superseded_id is None
    assert not first.get(elsewhere.id).disabled

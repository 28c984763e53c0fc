"""Hybrid search's rules (core.hybrid), on every backend, with a test embedder."""

from __future__ import annotations

from pathlib import Path

import pytest

from ltm_desktop.core.records import GLOBAL_PROJECT_ID, MATCHED_MEANING, MATCHED_WORDS
from ltm_desktop.core.service import MemoryService
from tests.conftest import ServiceFactory, make_draft
from tests.doubles.embedders import BrokenEmbedder, WordHashEmbedder

pytestmark = pytest.mark.every_backend

SYNONYMS = {"exceptions": "crash", "failures": "crash", "logged": "report", "reported": "report"}


@pytest.fixture
def semantic(make_service: ServiceFactory, tmp_path: Path) -> MemoryService:
    return make_service(tmp_path / "semantic", embedder=WordHashEmbedder(SYNONYMS))


def scope(service: MemoryService) -> str:
    return service.resolve_scope(cwd="/home/dev/src/shop", register=True)


def test_a_paraphrase_with_no_shared_word_is_found_by_meaning(semantic: MemoryService) -> None:
    project = scope(semantic)
    target = semantic.add(project, make_draft("Crashes are reported to Sentry"), "a").memory
    semantic.add(project, make_draft("Deploy with make deploy"), "a")
    hits = semantic.search(project, "where do failures get logged")
    assert [h.memory.id for h in hits] == [target.id]
    assert hits[0].matched == MATCHED_MEANING
    assert hits[0].snippet == "Crashes are reported to Sentry"


def test_nothing_below_the_floor_is_returned(semantic: MemoryService) -> None:
    project = scope(semantic)
    semantic.add(project, make_draft("Crashes are reported to Sentry"), "a")
    assert semantic.search(project, "zeppelin airship") == []


def test_an_exact_lexical_hit_never_loses_to_a_semantic_one(semantic: MemoryService) -> None:
    project = scope(semantic)
    exact = semantic.add(project, make_draft("failures logged in the audit table"), "a").memory
    for name in ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot"):
        # closer in meaning (synonyms) than the exact hit, holding neither word
        semantic.add(project, make_draft(f"crash report crash report {name}"), "a")
    hits = semantic.search(project, "failures logged", limit=5)
    assert hits[0].memory.id == exact.id
    assert hits[0].matched == MATCHED_WORDS
    assert [h.matched for h in hits[1:]] == [MATCHED_MEANING] * 4


def test_a_strong_global_hit_is_not_cut_by_weak_project_hits(service: MemoryService) -> None:
    """Global has few rows, so its BM25 statistics differ; each scope's best ranks first."""
    project = scope(service)
    for i in range(200):
        service.add(project, make_draft(f"unrelated note number {i} about billing q{i}"), "a")
    for i in range(8):
        filler = " ".join(f"word{i}x{j}" for j in range(30))
        service.add(project, make_draft(f"{filler} staging mentioned once {i}"), "a")
    strong = service.add(
        GLOBAL_PROJECT_ID,
        make_draft("staging: staging uses the staging cluster", title="Staging"),
        "a",
    ).memory
    service.add(GLOBAL_PROJECT_ID, make_draft("prefer tabs"), "a")
    hits = service.search(project, "staging", limit=5)
    assert strong.id in [h.memory.id for h in hits]


def test_a_model_that_cannot_load_falls_back_to_words(
    make_service: ServiceFactory, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    broken = BrokenEmbedder()
    service = make_service(tmp_path / "broken", embedder=broken)
    project = scope(service)
    memory = service.add(project, make_draft("Crashes are reported to Sentry"), "a").memory
    hits = service.search(project, "Sentry")
    assert [h.memory.id for h in hits] == [memory.id]
    status = service.index_status()
    assert status.problem is not None
    assert "semantic search is off" in status.problem

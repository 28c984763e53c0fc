"""Hybrid search's rules (core.hybrid), on every backend, with a test embedder."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from ltm_desktop.core.records import GLOBAL_PROJECT_ID, MATCHED_MEANING, MATCHED_WORDS
from ltm_desktop.core.search.hybrid import CENTRE, NEAR_SHARE
from ltm_desktop.core.service import MemoryService
from tests.conftest import ServiceFactory, make_draft
from tests.doubles.embedders import DIM, BrokenEmbedder, TableEmbedder, WordHashEmbedder

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
    hits = semantic.search.query(project, "where do failures get logged")
    assert [h.memory.id for h in hits] == [target.id]
    assert hits[0].matched == MATCHED_MEANING
    assert hits[0].snippet == "Crashes are reported to Sentry"


def test_nothing_below_the_floor_is_returned(semantic: MemoryService) -> None:
    project = scope(semantic)
    semantic.add(project, make_draft("Crashes are reported to Sentry"), "a")
    assert semantic.search.query(project, "zeppelin airship") == []


def test_an_exact_lexical_hit_never_loses_to_a_semantic_one(semantic: MemoryService) -> None:
    project = scope(semantic)
    exact = semantic.add(project, make_draft("failures logged in the audit table"), "a").memory
    for name in ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot"):
        # closer in meaning (synonyms) than the exact hit, holding neither word
        semantic.add(project, make_draft(f"crash report crash report {name}"), "a")
    hits = semantic.search.query(project, "failures logged", limit=5)
    assert hits[0].memory.id == exact.id
    assert hits[0].matched == MATCHED_WORDS
    assert [h.matched for h in hits[1:]] == [MATCHED_MEANING] * 4


def test_an_excluded_word_leaves_its_memories_out_of_the_hits_by_meaning_too(
    semantic: MemoryService,
) -> None:
    """``-sentry`` left the memories naming Sentry out of the word hits only: search by
    meaning brought them back, and the excluded word even pulled them nearer."""
    project = scope(semantic)
    semantic.add(project, make_draft("Crashes are reported to Sentry"), "a")
    other = semantic.add(project, make_draft("Crashes are reported to Datadog"), "a").memory
    hits = semantic.search.query(project, "where do failures get logged -sentry")
    assert [h.memory.id for h in hits] == [other.id]
    assert hits[0].matched == MATCHED_MEANING
    assert len(semantic.search.query(project, "where do failures get logged")) == 2


def test_a_phrase_in_quotes_is_answered_by_the_memories_holding_it_only(
    semantic: MemoryService,
) -> None:
    project = scope(semantic)
    holder = semantic.add(project, make_draft("failures logged in the audit table"), "a").memory
    semantic.add(project, make_draft("crash report crash report"), "a")  # near in meaning
    quoted = semantic.search.query(project, '"failures logged"')
    assert [h.memory.id for h in quoted] == [holder.id]
    assert len(semantic.search.query(project, "failures logged")) == 2  # unquoted: by meaning too


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
    hits = service.search.query(project, "staging", limit=5)
    assert strong.id in [h.memory.id for h in hits]


def test_a_model_that_cannot_load_falls_back_to_words(
    make_service: ServiceFactory, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    broken = BrokenEmbedder()
    service = make_service(tmp_path / "broken", embedder=broken)
    project = scope(service)
    memory = service.add(project, make_draft("Crashes are reported to Sentry"), "a").memory
    hits = service.search.query(project, "Sentry")
    assert [h.memory.id for h in hits] == [memory.id]
    status = service.search.index_status()
    assert status.problem is not None
    assert "semantic search is off" in status.problem


def axis(*weights: tuple[int, float]) -> list[float]:
    vector = [0.0] * DIM
    for dimension, weight in weights:
        vector[dimension] = weight
    return vector


def test_what_every_memory_shares_does_not_make_a_hub_of_a_memory(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    """Dimension 0 is what the scope's memories share (they are all about software), 1 the
    query's subject. A bland memory near that mean is the nearest by plain cosine, yet the
    search, centred on the mean, ranks the memory about the subject first; the score
    stays the plain cosine, and the floor applies to it."""
    common, subject = 0, 1
    table = {f"note{i:03d}": axis((common, 1.0), (2 + i % (DIM - 2), 1.0)) for i in range(200)}
    table["bland"] = axis((common, 1.0))
    table["specific"] = axis((common, 1.0), (subject, 1.0))
    table["QUERY"] = axis((common, 1.0), (subject, 0.3))
    embedder = TableEmbedder(table)
    service = make_service(tmp_path / "hub", embedder=embedder)
    project = scope(service)
    service.import_memories(project, [make_draft(f"note{i:03d}") for i in range(200)], "a")
    bland = service.add(project, make_draft("bland"), "a").memory
    specific = service.add(project, make_draft("specific"), "a").memory
    service.backfill.run_once()

    query = embedder.embed(["QUERY"])[0]
    plain = service.store.search_vectors([project], embedder.model, query, 2, service.now())
    assert [m.id for m, _ in plain] == [bland.id, specific.id]
    centred = service.store.search_vectors(
        [project], embedder.model, query, 2, service.now(), 0.3, centre=CENTRE
    )
    assert [m.id for m, _ in centred] == [specific.id, bland.id]
    assert [s for _, s in centred] == pytest.approx([1.3 / (1.044 * 1.4142), 1 / 1.044], abs=0.01)
    hits = service.search.query(project, "QUERY", limit=2)
    assert [h.memory.id for h in hits] == [specific.id, bland.id]
    assert [h.matched for h in hits] == [MATCHED_MEANING, MATCHED_MEANING]
    above = service.store.search_vectors(
        [project], embedder.model, query, 5, service.now(), 0.95, centre=CENTRE
    )
    assert [m.id for m, _ in above] == [bland.id]  # its cosine 0.958; the others' below


def test_meaning_counts_when_the_nearest_reaches_the_floor_then_down_to_its_share(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    """Floor 0.3: a query whose nearest memory is at 0.9 also gets one at 0.25 (above
    NEAR_SHARE x 0.3); a query whose nearest is at 0.28 means nothing stored: no hit."""
    assert NEAR_SHARE * 0.3 < 0.25
    rest = math.sqrt(1 - 0.9**2 - 0.25**2)
    weak = math.sqrt(1 - 0.28**2 - 0.25**2)
    embedder = TableEmbedder(
        {
            "xylophone": axis((0, 1.0)),
            "yodel": axis((1, 1.0)),
            "NEAR": axis((0, 0.9), (1, 0.25), (2, rest)),
            "VAGUE": axis((0, 0.28), (1, 0.25), (2, weak)),
        }
    )
    service = make_service(tmp_path / "floor", embedder=embedder)
    project = scope(service)
    x = service.add(project, make_draft("xylophone"), "a").memory
    y = service.add(project, make_draft("yodel"), "a").memory
    assert [h.memory.id for h in service.search.query(project, "NEAR")] == [x.id, y.id]
    assert service.search.query(project, "VAGUE") == []


def test_hits_by_meaning_carry_their_similarity(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    """A hit the search by meaning found carries its cosine similarity (cached answers
    too, and the API sends it); a hit by words alone has none."""
    from ltm_desktop.api.serialize import search_hit

    rest = math.sqrt(1 - 0.9**2 - 0.25**2)
    embedder = TableEmbedder(
        {
            "xylophone": axis((0, 1.0)),
            "yodel": axis((1, 1.0)),
            "NEAR": axis((0, 0.9), (1, 0.25), (2, rest)),
        }
    )
    service = make_service(tmp_path / "similar", embedder=embedder)
    project = scope(service)
    service.add(project, make_draft("xylophone"), "a")
    service.add(project, make_draft("yodel"), "a")
    service.add(project, make_draft("kazoo without vector"), "a")
    for _ in range(2):  # the second answer comes from the search cache
        hits = {h.memory.content: h for h in service.search.query(project, "NEAR")}
        assert hits["xylophone"].similarity == pytest.approx(0.9, abs=1e-3)
        assert hits["yodel"].similarity == pytest.approx(0.25, abs=1e-3)
        assert search_hit(hits["xylophone"])["similarity"] == pytest.approx(0.9, abs=1e-3)
    by_words = service.search.query(project, "kazoo")
    assert [h.similarity for h in by_words] == [None]
    assert "similarity" not in search_hit(by_words[0])

"""The backfill as a cursor: stopped midway and started again it embeds only what is left,
and the writes it runs beside succeed and end with the vectors of their own text."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import pytest

from ltm_desktop.core.records import ListQuery, Memory, MemoryDraft
from ltm_desktop.core.search import backfill
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.writing import embedding_text
from tests.api.conftest import wait_until
from tests.conftest import ServiceFactory, make_draft
from tests.doubles.embedders import EndpointEmbedder
from tests.hang import HANG_SECONDS, finishes

pytestmark = pytest.mark.every_backend

MODEL = "test-endpoint"
WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima".split()


class CountingEmbedder(EndpointEmbedder):
    """Never inline (every vector is the backfill's); records each text it embeds, and
    can hold its ``pause_at``-th call until ``resume`` is set."""

    def __init__(self, pause_at: int = 0) -> None:
        super().__init__(model=MODEL)
        self.texts: list[str] = []
        self.pause_at = pause_at
        self.batches = 0
        self.paused: list[str] = []  # the texts of the held call
        self.entered = threading.Event()
        self.resume = threading.Event()

    def embed(self, texts: Sequence[str]) -> list[bytes]:
        self.batches += 1
        if self.batches == self.pause_at:
            self.paused = list(texts)
            self.entered.set()
            assert self.resume.wait(HANG_SECONDS)
        self.texts += texts
        return super().embed(texts)


def drafts(count: int) -> list[MemoryDraft]:
    """Memories with texts of their own (each a different pair of words and a number)."""
    return [
        make_draft(f"Note {n}: {WORDS[n % len(WORDS)]} {WORDS[(n // 12) % len(WORDS)]} {n}")
        for n in range(count)
    ]


def every_memory(service: MemoryService, project: str) -> list[Memory]:
    return service.list_memories(project, ListQuery(limit=1000))


def has_own_vector(service: MemoryService, memory_id: str) -> bool:
    """Whether the memory's stored vector is that of its text now."""
    memory = service.get(memory_id)
    vector = EndpointEmbedder(model=MODEL).embed([embedding_text(memory)])[0]
    near = service.store.search_vectors(
        [memory.project_id],
        MODEL,
        vector,
        5,
        service.now(),
        min_score=0.99,  # int8: ~0.002 off
    )
    return memory_id in [m.id for m, _ in near]


def test_a_backfill_closed_midway_resumes_and_embeds_no_memory_twice(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    count = 2 * backfill.BATCH + 50
    first = CountingEmbedder(pause_at=2)
    service = make_service(tmp_path / "d", embedder=first)
    project = service.resolve_scope(cwd="/srv/shop", register=True)
    service.import_memories(project, drafts(count), "a")
    texts = sorted(embedding_text(m) for m in every_memory(service, project))
    assert len(texts) == count
    service.backfill.start()
    assert first.entered.wait(HANG_SECONDS)  # a batch stored, the next being embedded
    closing = threading.Thread(target=service.close)
    closing.start()  # the app quits midway
    wait_until(lambda: not service.backfill.active)
    first.resume.set()
    closing.join(HANG_SECONDS)
    assert not closing.is_alive()
    assert 0 < len(first.texts) < count

    second = CountingEmbedder()
    again = make_service(tmp_path / "d", embedder=second)
    assert again.store.index_progress(MODEL) == (len(first.texts), count)  # all it embedded
    assert finishes(again.backfill.run_once) == count - len(first.texts)
    assert not set(first.texts) & set(second.texts)  # nothing done before is embedded again
    assert sorted(first.texts + second.texts) == texts  # and every memory once
    assert again.store.index_progress(MODEL) == (count, count)
    assert finishes(again.backfill.run_once) == 0
    assert len(second.texts) == count - len(first.texts)  # done: nothing embedded again


def test_writes_during_a_backfill_succeed_and_end_with_their_own_vectors(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    count = 2 * backfill.BATCH
    embedder = CountingEmbedder(pause_at=1)
    service = make_service(tmp_path / "d", embedder=embedder)
    project = service.resolve_scope(cwd="/srv/shop", register=True)
    service.import_memories(project, drafts(count), "a")
    service.backfill.start()
    assert embedder.entered.wait(HANG_SECONDS)  # the first batch read, being embedded
    by_text = {embedding_text(m): m.id for m in every_memory(service, project)}
    edited = by_text[embedder.paused[0]]  # read by the backfill with its old text
    service.update(edited, {"content": "Invoices are mailed on Mondays by the billing job"}, "a")
    added = service.add(project, make_draft("Deploys go out on Fridays after the freeze"), "a")
    errors: list[BaseException] = []
    written: set[str] = set()

    def agent() -> None:  # an agent writing while the backfill stores its batches
        try:
            for n in range(20):
                draft = make_draft(f"Agent {WORDS[n % 12]} wrote {n * 7919} on {n}")
                written.add(service.add(project, draft, "b").memory.id)
        except BaseException as exc:  # noqa: BLE001 - asserted in the test's thread
            errors.append(exc)

    writer = threading.Thread(target=agent)
    writer.start()
    embedder.resume.set()
    writer.join(HANG_SECONDS)
    assert not writer.is_alive()
    assert errors == []
    assert len(written) > 1  # (an add may have merged into an earlier, like one)
    wait_until(lambda: len(set(service.store.index_progress(MODEL))) == 1)  # all done
    active = every_memory(service, project)
    assert len(active) == service.store.index_progress(MODEL)[0] >= count + 2
    assert has_own_vector(service, edited)  # its new text's, not the one read before
    assert has_own_vector(service, added.memory.id)
    assert all(has_own_vector(service, m.id) for m in active if m.id in written)

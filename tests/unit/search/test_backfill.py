"""Vectors on write, dropped with the text, and the background backfill for the rest."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from ltm_desktop.core.backend import USE_HEAT_EPOCH, USE_HEAT_HALF_LIFE
from ltm_desktop.core.records import MATCHED_MEANING, IndexStatus
from ltm_desktop.core.search import backfill
from ltm_desktop.core.service import MemoryService
from ltm_desktop.store import SqliteStore
from ltm_desktop.store.migrations import MIGRATIONS, latest_version
from tests.api.conftest import wait_until
from tests.conftest import FakeClock, ServiceFactory, make_draft
from tests.doubles.embedders import EndpointEmbedder, WordHashEmbedder

pytestmark = pytest.mark.every_backend

SYNONYMS = {"failures": "crash", "logged": "report", "reported": "report"}


def test_imported_memories_get_vectors_from_the_backfill(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    embedder = WordHashEmbedder(SYNONYMS)
    service = make_service(tmp_path / "d", embedder=embedder)
    project = service.resolve_scope(cwd="/srv/shop", register=True)
    service.import_memories(project, [make_draft("Crashes are reported to Sentry")], "a")
    assert service.search.query(project, "failures logged") == []  # no vector yet
    assert (service.search.index_status().with_vectors, service.search.index_status().memories) == (
        0,
        1,
    )
    progress: list[IndexStatus] = []
    service.backfill.subscribe(progress.append)
    assert service.backfill.run_once() == 1
    [hit] = service.search.query(project, "failures logged")
    assert hit.matched == MATCHED_MEANING
    assert progress[-1].with_vectors == progress[-1].memories == 1
    assert service.backfill.run_once() == 0  # resumable: what is done stays done


def test_a_changed_text_gets_a_new_vector_and_loses_the_old_one(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    service = make_service(tmp_path / "d", embedder=WordHashEmbedder(SYNONYMS))
    project = service.resolve_scope(cwd="/srv/shop", register=True)
    memory = service.add(project, make_draft("Crashes are reported to Sentry"), "a").memory
    assert [h.memory.id for h in service.search.query(project, "failures logged")] == [memory.id]
    service.update(memory.id, {"content": "Invoices are mailed on Mondays"}, "a")
    assert service.search.query(project, "failures logged") == []
    assert [h.memory.id for h in service.search.query(project, "invoices mailed")] == [memory.id]


@pytest.mark.sqlite_only
def test_the_retrieval_migration_keeps_uses_and_makes_a_ttl_of_zero_never(tmp_path: Path) -> None:
    db, backups = tmp_path / "ltm.sqlite", tmp_path / "backups"
    SqliteStore(db, backups, MIGRATIONS[:2]).close()
    used_at = USE_HEAT_EPOCH + USE_HEAT_HALF_LIFE  # 2 ** 1 per use
    conn = sqlite3.connect(db)
    for n, (uses, ttl) in enumerate([(4, 0), (0, None)]):
        conn.execute(
            "INSERT INTO memories (id, project_pk, title, content, category, importance, "
            "signature, created_at, updated_at, last_used_at, use_count, ttl_days, expires_at, "
            "source, token_count) VALUES (?, 1, 't', 'c', 'knowledge', 5, ?, 0, 0, ?, ?, ?, ?, "
            "'a', 1)",
            (f"mem_{n}", f"sig{n}", used_at if uses else None, uses, ttl, 0 if ttl == 0 else None),
        )
    conn.commit()
    conn.close()
    store = SqliteStore(db, backups, MIGRATIONS)
    try:
        assert store.schema_version == latest_version()
        assert store.migration_backup is not None
        assert store.migration_backup.exists()
        used, unused = store.get_memory("mem_0"), store.get_memory("mem_1")
        assert used.use_heat == pytest.approx(4 * 2.0)
        assert (used.ttl_days, used.expires_at, unused.use_heat) == (None, None, 0.0)
        assert store.unindexed("m", "", 10) == [used, unused]  # for the backfill
    finally:
        store.close()


def test_with_the_backfill_running_a_new_memory_gets_its_vector_off_the_write_path(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    """The app and serve leave a write's vector to the backfill (batched); it follows."""
    embedder = WordHashEmbedder(SYNONYMS)
    service = make_service(tmp_path / "d", embedder=embedder)
    filled = threading.Event()

    def note(status: IndexStatus) -> None:
        if status.complete:
            filled.set()

    service.backfill.subscribe(note)
    service.backfill.start()
    assert filled.wait(10)  # the first, whole pass (nothing to do)
    project = service.resolve_scope(cwd="/srv/shop", register=True)
    filled.clear()
    calls = embedder.calls
    memory = service.add(project, make_draft("Crashes are reported to Sentry"), "a").memory
    assert filled.wait(10)
    assert embedder.calls == calls + 1  # embedded once, by the backfill
    assert [h.memory.id for h in service.search.query(project, "failures logged")] == [memory.id]


def has_vector(service: MemoryService, memory_id: str, model: str) -> bool:
    """Whether the memory is among the scope's nearest by meaning to its own text."""
    memory = service.get(memory_id)
    vector = EndpointEmbedder(SYNONYMS, model).embed([memory.content])[0]
    near = service.store.search_vectors([memory.project_id], model, vector, 5, 0.99)
    return memory_id in [m.id for m, _ in near]


def test_an_edit_left_to_the_backfill_gets_its_new_vector(
    make_service: ServiceFactory, tmp_path: Path, clock: FakeClock
) -> None:
    """An endpoint embeds nothing on write; an edit drops the old vector: the backfill,
    woken by the edit, makes the new one (it used to look only at new ids)."""
    embedder = EndpointEmbedder(SYNONYMS)
    service = make_service(tmp_path / "d", embedder=embedder)
    service.backfill.start()
    project = service.resolve_scope(cwd="/srv/shop", register=True)
    memory = service.add(project, make_draft("Deploy with make deploy"), "a").memory
    wait_until(lambda: has_vector(service, memory.id, embedder.model))
    clock.advance(60)  # then another, a minute later: the edited one is not among the newest
    later = service.add(project, make_draft("Lint with ruff"), "a").memory
    wait_until(lambda: has_vector(service, later.id, embedder.model))
    service.update(
        memory.id, {"title": "Sentry", "content": "Failures are reported to Sentry"}, "gui"
    )
    wait_until(lambda: has_vector(service, memory.id, embedder.model))
    hits = service.search.query(project, "crash logged")  # no word in common
    assert (hits[0].memory.id, hits[0].matched) == (memory.id, MATCHED_MEANING)


def test_a_restore_after_a_model_change_gets_the_new_models_vector(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    before = make_service(tmp_path / "d", embedder=WordHashEmbedder(SYNONYMS, "model-1"))
    project = before.resolve_scope(cwd="/srv/shop", register=True)
    trashed = before.add(project, make_draft("Crashes are reported to Sentry"), "a").memory
    before.add(project, make_draft("Deploy with make deploy"), "a")
    before.remove(trashed.id, "gui")
    before.close()
    after = make_service(tmp_path / "d", embedder=EndpointEmbedder(SYNONYMS, "model-2"))
    after.backfill.start()
    wait_until(lambda: after.store.index_progress("model-2") == (1, 1))  # the active one
    after.restore(trashed.id, "gui")
    wait_until(lambda: has_vector(after, trashed.id, "model-2"))


def test_memories_the_endpoint_could_not_embed_are_tried_again_without_a_write(
    make_service: ServiceFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clock: FakeClock
) -> None:
    monkeypatch.setattr(backfill, "RETRY_SECONDS", 0.05)  # a minute in the product
    embedder = EndpointEmbedder(SYNONYMS)
    embedder.down = True
    service = make_service(tmp_path / "d", embedder=embedder)
    service.backfill.start()
    project = service.resolve_scope(cwd="/srv/shop", register=True)
    memory = service.add(project, make_draft("Crashes are reported to Sentry"), "a").memory
    wait_until(lambda: service.backfill.last_status() is not None)
    assert not has_vector(service, memory.id, embedder.model)
    clock.advance(60)  # a long outage
    embedder.down = False  # the endpoint is back; nothing else is written
    wait_until(lambda: has_vector(service, memory.id, embedder.model))

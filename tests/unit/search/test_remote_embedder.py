"""The ``openai`` embedder against a local endpoint (tests/doubles/fake_embeddings.py):
vectors made in the background, and whatever the endpoint answers, search goes on by
words with a status note; nothing reaches the agent, and the backfill keeps running."""

from __future__ import annotations

import pytest

from ltm_desktop.core.records import MATCHED_WORDS
from ltm_desktop.core.service import MemoryService
from ltm_desktop.embedding.remote import RemoteEmbedder
from tests.api.conftest import wait_until
from tests.conftest import ServiceFactory, make_draft
from tests.doubles.fake_embeddings import FakeEmbeddings
from tests.doubles.fake_embeddings import fake_embeddings as fake_embeddings  # a fixture

SCOPE = "/home/dev/src/shop"


def remote_service(make_service: ServiceFactory, endpoint: FakeEmbeddings) -> MemoryService:
    return make_service(embedder=RemoteEmbedder(endpoint.base_url, "bag-of-words"))


def test_the_backfill_gives_every_memory_the_endpoints_vector(
    make_service: ServiceFactory, fake_embeddings: FakeEmbeddings
) -> None:
    service = remote_service(make_service, fake_embeddings)
    scope = service.resolve_scope(cwd=SCOPE, register=True)
    for text in ("Deploy with make deploy", "Crashes are reported to Sentry"):
        service.add(scope, make_draft(text), "agent")
    service.backfill.run_once()
    status = service.search.index_status()
    assert (status.with_vectors, status.memories, status.problem) == (2, 2, None)
    assert fake_embeddings.state.calls >= 1


@pytest.mark.parametrize("mode", ["down", "not_http", "rows_not_objects", "too_few", "not_json"])
def test_an_endpoint_answering_nonsense_leaves_search_by_words(
    make_service: ServiceFactory, fake_embeddings: FakeEmbeddings, mode: str
) -> None:
    fake_embeddings.state.mode = mode
    service = remote_service(make_service, fake_embeddings)
    service.backfill.start()  # as the app and `serve` run it
    scope = service.resolve_scope(cwd=SCOPE, register=True)
    deploy = service.add(scope, make_draft("Deploy with make deploy"), "agent").memory
    service.backfill.wake()
    wait_until(lambda: service.search.index_status().problem is not None)  # the backfill tried
    hits = service.search.query(scope, "deploy", include_global=False)
    assert [(h.memory.id, h.matched) for h in hits] == [(deploy.id, MATCHED_WORDS)]
    assert fake_embeddings.base_url in str(service.search.index_status().problem)
    assert service.backfill.active  # its thread lives on, to try again later

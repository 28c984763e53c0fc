"""Eight clients adding, editing, removing and searching one project and global at once,
with search by meaning on and the backfill filling in vectors behind the writes (issue #29:
a search that met a scope's vectors half grown answered -32603).

Every call must succeed, and every memory a client was told is stored must be found by
its words afterwards (and every removed one must not). Nothing here depends on timing:
how the calls interleave varies from run to run, what is asserted does not.
"""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from ltm_desktop.api.client import Client
from ltm_desktop.core.records import GLOBAL_PROJECT_ID
from ltm_desktop.embedding.static import StaticEmbedder
from tests.api.conftest import ServerFactory, wait_until
from tests.conftest import ServiceFactory

pytestmark = pytest.mark.every_backend

CLIENTS = 8
ADDS = 150  # per client: 1,200 in the project, past 1,024 rows where its arrays regrow
SEARCH_EVERY = 5
UPDATE_EVERY = 7
REMOVE_EVERY = 11
GLOBAL_EVERY = 8  # and every eighth step one more in global
CWD = "/srv/stress"
TOPICS = (
    "the deploy pipeline ships containers to the kubernetes cluster after tests",
    "postgres migrations run inside one transaction before the api starts",
    "the frontend bundles typescript with vite and serves it from a cdn",
    "payments go through stripe webhooks verified with the signing secret",
    "logs are shipped to loki and alerts page the on call engineer",
    "the cache keeps sessions in redis for thirty minutes of idle time",
    "background jobs retry three times with exponential backoff on failure",
    "feature flags are read from launchdarkly once per request",
)
MEANINGS = (
    "how do we release new builds to production servers",
    "what happens to the database schema on startup",
    "where does the user interface code get compiled",
    "how is money collected from customers",
)


@dataclass
class Owned:
    """One client's memories: id -> (its unique word, the scope it lives in)."""

    live: dict[str, tuple[str, str]] = field(default_factory=dict)
    removed: dict[str, tuple[str, str]] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)


def _search(client: Client, word: str, scope: str) -> list[str]:
    if scope == GLOBAL_PROJECT_ID:
        hits = client.memory_search(word, project_id=GLOBAL_PROJECT_ID, limit=3)
    else:
        hits = client.memory_search(word, cwd=CWD, limit=3)
    return [hit["memory"]["id"] for hit in hits]


def _add(client: Client, owned: Owned, word: str, scope: str, n: int, i: int) -> None:
    content = f"{TOPICS[(n + i) % len(TOPICS)]} {word} ref{i}k{n} item{n}z{i}"
    if scope == GLOBAL_PROJECT_ID:
        added = client.memory_add(content, project_id=GLOBAL_PROJECT_ID)
    else:
        added = client.memory_add(content, cwd=CWD)
    assert added["status"] == "created", added
    owned.live[added["memory"]["id"]] = (word, scope)


def _work(socket_path: Path, n: int, owned: Owned) -> None:
    """ADDS adds; every SEARCH_EVERY-th a search by a word and one by meaning, every
    UPDATE_EVERY-th an edit and every REMOVE_EVERY-th a removal of an earlier memory.
    A failed call is recorded and the client goes on, so that every failure is counted."""
    rng = random.Random(n)
    with Client(socket_path, client_name=f"stress-{n}") as client:
        for i in range(1, ADDS + 1):
            try:
                _add(client, owned, f"mark{n}q{i}", CWD, n, i)
                if i % GLOBAL_EVERY == 0:
                    _add(client, owned, f"mark{n}g{i}", GLOBAL_PROJECT_ID, n, i)
                if i % SEARCH_EVERY == 0:
                    memory_id, (earlier, where) = rng.choice(sorted(owned.live.items()))
                    found = _search(client, earlier, where)
                    assert memory_id in found, (earlier, found)
                    client.memory_search(MEANINGS[i % len(MEANINGS)], cwd=CWD, limit=5)
                if i % UPDATE_EVERY == 0:
                    memory_id, (earlier, where) = rng.choice(sorted(owned.live.items()))
                    topic = TOPICS[rng.randrange(len(TOPICS))]
                    client.memory_update(memory_id, content=f"{topic} {earlier} edited{n}e{i}")
                if i % REMOVE_EVERY == 0:
                    memory_id = rng.choice(sorted(owned.live))
                    client.memory_remove(memory_id)
                    owned.removed[memory_id] = owned.live.pop(memory_id)
            except Exception as exc:  # counted, and the run goes on
                owned.failures.append(f"client {n} step {i}: {type(exc).__name__}: {exc}")


@pytest.mark.real_engines  # the double is not for threads
@pytest.mark.slow
def test_concurrent_writes_and_searches_never_fail(
    make_service: ServiceFactory, start_server: ServerFactory
) -> None:
    service = make_service(embedder=StaticEmbedder())  # the default [search] embedder
    service.backfill.start()  # as `serve` runs: new memories get their vectors behind
    model = service.search.index_status().model
    assert model
    server = start_server(service)
    assert server.server.endpoint is not None
    socket_path = server.server.endpoint.socket_path
    assert socket_path is not None
    owned = [Owned() for _ in range(CLIENTS)]
    threads = [
        threading.Thread(target=_work, args=(socket_path, n, owned[n]), name=f"stress-{n}")
        for n in range(CLIENTS)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    failures = [failure for mine in owned for failure in mine.failures]
    assert failures == [], f"{len(failures)} failed calls:\n" + "\n".join(failures)
    assert owned[0].live
    done = service.store.index_progress  # counted now (index_status may reuse a count)
    wait_until(lambda: done(model)[0] == done(model)[1], timeout=60)
    with Client(socket_path, client_name="checker") as client:
        for mine in owned:
            for memory_id, (word, scope) in mine.live.items():
                assert memory_id in _search(client, word, scope), word
            for memory_id, (word, scope) in mine.removed.items():
                assert memory_id not in _search(client, word, scope), word
        for meaning in MEANINGS:  # by meaning over the whole, filled-in index: answered
            assert isinstance(client.memory_search(meaning, cwd=CWD, limit=5), list)

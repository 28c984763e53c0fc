"""Eight clients, five hundred mixed requests each: nothing lost, nothing duplicated."""

from __future__ import annotations

import random
import threading
from pathlib import Path

import pytest

from ltm_desktop.api.client import Client
from ltm_desktop.core.records import ListQuery
from ltm_desktop.core.service import MemoryService

pytestmark = pytest.mark.every_backend

CLIENTS = 8
REQUESTS = 500


@pytest.mark.slow
def test_eight_clients_mixed_requests(socket_path: Path, service: MemoryService) -> None:
    added: dict[int, list[str]] = {n: [] for n in range(CLIENTS)}
    errors: list[BaseException] = []
    cwd = "/srv/shared"

    def run(n: int) -> None:
        rng = random.Random(n)
        try:
            with Client(socket_path, client_name=f"agent-{n}") as client:
                for i in range(REQUESTS):
                    roll = rng.random()
                    if roll < 0.4 or not added[n]:
                        text = f"agent{n} fact{i} about widget{n}x{i} and gadget{i}y{n}"
                        result = client.memory_add(text, cwd=cwd)
                        assert result["status"] == "created", result
                        assert result["memory"]["content"] == text  # the answer is ours
                        added[n].append(result["memory"]["id"])
                    elif roll < 0.7:
                        hits = client.memory_search(f"widget{n}x", cwd=cwd, limit=3)
                        assert all(f"agent{n} " in h["memory"]["content"] for h in hits)
                    elif roll < 0.85:
                        memory_id = rng.choice(added[n])
                        assert client.memory_get(memory_id)["id"] == memory_id
                    else:
                        memory_id = rng.choice(added[n])
                        updated = client.memory_update(memory_id, importance=rng.randint(0, 10))
                        assert updated["id"] == memory_id
        except BaseException as exc:  # reported below, with the others
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    every_id = [memory_id for ids in added.values() for memory_id in ids]
    assert len(every_id) == len(set(every_id))
    project = service.resolve_scope(cwd=cwd)
    stored = service.list_memories(project, ListQuery(limit=10_000))
    assert {m.id for m in stored} == set(every_id)
    for n, ids in added.items():
        assert {m.source for m in stored if m.id in set(ids)} == {f"agent-{n}"}

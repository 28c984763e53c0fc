"""The unit of work every backend provides: the core decides and writes in one transaction."""

from __future__ import annotations

import pytest

from ltm_desktop.core import rules, writing
from ltm_desktop.core.privacy.screening import Screen
from ltm_desktop.core.records import AddStatus
from ltm_desktop.core.service import MemoryService
from ltm_desktop.store import SqliteStore
from tests.conftest import make_draft
from tests.doubles.memory_store import InMemoryStore

pytestmark = pytest.mark.every_backend


class DecidedAgainst(Exception):
    pass


def test_each_run_uses_the_backend_it_names(service: MemoryService, backend: str) -> None:
    from ltm_desktop.postgres.pg_store import PostgresStore

    expected = {"memory": InMemoryStore, "sqlite": SqliteStore, "postgres": PostgresStore}
    assert type(service.store) is expected[backend]


def test_a_unit_of_work_that_raises_writes_nothing(service: MemoryService, project: str) -> None:
    kept = service.add(project, make_draft("Releases are tagged from main"), "agent").memory
    seq = service.history.last_event_seq()

    def add_remove_then_fail() -> None:
        with service.store.write() as txn:
            draft = rules.validate_draft(make_draft("Hotfixes branch off the last tag"))
            writing.add_memory(txn, project, draft, "agent", service.now(), screen=Screen())
            writing.set_disabled(txn, kept.id, True, "agent", service.now())
            raise DecidedAgainst

    with pytest.raises(DecidedAgainst):
        add_remove_then_fail()
    assert [m.id for m in service.list_memories(project)] == [kept.id]
    assert service.get(kept.id) == kept
    assert service.history.last_event_seq() == seq


def test_a_unit_of_work_sees_its_own_writes(service: MemoryService, project: str) -> None:
    draft = rules.validate_draft(make_draft("Feature flags live in flags.yaml"))
    with service.store.write() as txn:
        first = writing.add_memory(txn, project, draft, "agent", service.now(), screen=Screen())
        again = writing.add_memory(txn, project, draft, "agent", service.now(), screen=Screen())
        assert txn.get_memory(first.memory.id).use_count == 1
    assert (first.status, again.status) == (AddStatus.CREATED, AddStatus.DEDUPLICATED)
    assert again.memory.id == first.memory.id
    assert service.get(first.memory.id).use_count == 1

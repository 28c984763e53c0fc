"""Forgetting by id within a scope: memories and observations, refused by name elsewhere."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from ltm_desktop.core.errors import Conflict, InvalidInput, NotFound
from ltm_desktop.core.privacy.forgetting import MAX_IDS, forget
from ltm_desktop.core.records import GLOBAL_PROJECT_ID
from ltm_desktop.core.service import MemoryService
from ltm_desktop.store import SqliteStore
from ltm_desktop.store.migrations import MIGRATIONS
from tests.conftest import make_draft

pytestmark = pytest.mark.every_backend  # forgetting is a core rule, whatever stores it

SHOP = "/home/dev/src/shop"


def observe(service: MemoryService, project: str, text: str) -> str:
    return service.observations.record(project, "agent_end", "s1", "claude-code", user_text=text).id


def test_forgotten_observation_leaves_recall_lists_and_counts(
    service: MemoryService, project: str
) -> None:
    kept = observe(service, project, "the flaky checkout test raced the payment mock")
    gone = observe(service, project, "the payment mock needs a fixed seed")
    forgotten = service.observations.forget(gone, "claude-code")
    assert forgotten.disabled
    hits = service.search.recall(project, "payment mock", kinds=["observation"], limit=10)
    assert [h.observation.id for h in hits if h.observation] == [kept]
    assert [o.id for o in service.observations.page(project)] == [kept]
    assert service.stats(project).observations == 1
    assert service.observations.get(gone).disabled  # the row is kept
    with pytest.raises(Conflict, match="already forgotten"):
        service.observations.forget(gone, "claude-code")
    with pytest.raises(NotFound):
        service.observations.forget("obs_nope", "claude-code")


def test_forget_removes_own_and_global_and_refuses_others_by_name(
    service: MemoryService, project: str
) -> None:
    shop = service.resolve_scope(cwd=SHOP, register=True)
    mine = service.add(project, make_draft("Deploys need the VPN"), "agent").memory.id
    shared = service.add(GLOBAL_PROJECT_ID, make_draft("User prefers tabs"), "agent").memory.id
    theirs = service.add(shop, make_draft("Shop uses Postgres 16"), "agent").memory.id
    obs_mine = observe(service, project, "fixed the login bug")
    obs_theirs = observe(service, shop, "shop checkout fixed")
    result = forget(
        service,
        project,
        [mine, shared, theirs, "mem_unknown", mine],
        [obs_mine, obs_theirs],
        "claude-code",
    )
    assert result.memories == (mine, shared)
    assert result.observations == (obs_mine,)
    refused = {r.id: r.reason for r in result.refused}
    assert set(refused) == {theirs, "mem_unknown", obs_theirs}
    assert f"'shop' ({shop})" in refused[theirs]
    assert "no memory has this id" in refused["mem_unknown"]
    assert service.get(mine).disabled
    assert service.get(shared).disabled
    assert not service.get(theirs).disabled
    assert not service.observations.get(obs_theirs).disabled
    assert service.history.memory(mine)[-1].actor == "claude-code"
    again = forget(service, project, [mine], [obs_mine], "claude-code")
    assert again.already == (mine, obs_mine)
    assert again.memories == again.observations == ()
    assert again.refused == ()


@pytest.mark.parametrize(
    ("memory_ids", "observation_ids", "field"),
    [
        (None, None, "memory_ids"),
        ([], [], "memory_ids"),
        ("mem_1", None, "memory_ids"),
        ([5], None, "memory_ids"),
        (None, [" "], "observation_ids"),
        ([f"mem_{i}" for i in range(MAX_IDS + 1)], None, "memory_ids"),
    ],
)
def test_forget_refuses_bad_id_lists(
    service: MemoryService,
    project: str,
    memory_ids: object,
    observation_ids: object,
    field: str,
) -> None:
    with pytest.raises(InvalidInput) as info:
        forget(service, project, memory_ids, observation_ids, "agent")
    assert info.value.field == field


def test_version_1_database_gains_forgettable_observations_after_a_backup(
    tmp_path: Path,
) -> None:
    db, backups = tmp_path / "ltm.sqlite", tmp_path / "backups"
    old = SqliteStore(db, backups, MIGRATIONS[:1])
    old.close()
    conn = sqlite3.connect(db)
    conn.execute(
        "INSERT INTO observations (id, project_pk, session_id, kind, title, narrative, "
        "created_at, source) VALUES ('obs_old', 1, 's', 'agent_end', 't', 'n', 0, 'a')"
    )
    conn.commit()
    conn.close()
    store = SqliteStore(db, backups, MIGRATIONS[:2])
    try:
        assert store.schema_version == 2
        assert store.migration_backup is not None
        assert store.migration_backup.exists()
        assert store.get_observation("obs_old").disabled is False
        assert store.forget_observation("obs_old", "agent", 1.0)[0].disabled
    finally:
        store.close()
    conn = sqlite3.connect(db)
    try:
        row = conn.execute(
            "SELECT disabled, disabled_at, disabled_by FROM observations WHERE id = 'obs_old'"
        ).fetchone()
    finally:
        conn.close()
    assert row == (1, 1.0, "agent")

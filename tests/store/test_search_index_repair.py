"""A damaged full-text search index: ``verify`` finds it, a search that hits it says how
to repair it (and ``health`` says so too), ``verify --repair`` rebuilds it from the rows
after a backup, and ``restore`` rebuilds it in the restored copy."""

from __future__ import annotations

import sqlite3
import stat
from pathlib import Path

import pytest

from ltm_desktop.api.methods import Dispatcher, Session
from ltm_desktop.api.protocol import INTERNAL_ERROR, Request, RpcError
from ltm_desktop.core.errors import SearchIndexDamaged
from ltm_desktop.core.records import GLOBAL_PROJECT_ID, MemoryDraft
from ltm_desktop.core.search.query import parse_query
from ltm_desktop.core.service import MemoryService
from tests.conftest import ServiceFactory
from tests.console import ltm

REPAIR = "`ltm-desktop verify --repair` rebuilds it"
SEGMENTS_LOST = "DELETE FROM {table}_data WHERE id > 10"  # what the fuzzer did


def _fill(service: MemoryService) -> None:
    for text in ("Deploys go out on Fridays", "Deploys need a green build", "Staging is vm-12"):
        service.add(GLOBAL_PROJECT_ID, MemoryDraft(text), "agent")
    for n in range(3):
        service.observations.record(
            GLOBAL_PROJECT_ID,
            "agent_end",
            "s1",
            "agent",
            user_text=f"deploy question {n}",
            assistant_text="Deploys go out on Fridays",
        )


def _damage(db: Path, statement: str = SEGMENTS_LOST, table: str | None = None) -> None:
    """Run ``statement`` on the file as another program would, on the global scope's table
    (or ``table``)."""
    with sqlite3.connect(db) as conn:
        if table is None:
            (pk,) = conn.execute(
                "SELECT pk FROM projects WHERE project_id = ?", (GLOBAL_PROJECT_ID,)
            ).fetchone()
            table = f"memory_fts_{pk}"
        conn.execute(statement.format(table=table))
    conn.close()


@pytest.fixture
def damaged(make_service: ServiceFactory, tmp_path: Path) -> Path:
    """A closed data dir whose global scope's search index lost its segments."""
    service = make_service(tmp_path / "data")
    _fill(service)
    service.close()
    _damage(tmp_path / "data" / "ltm.sqlite")
    return tmp_path / "data"


def _searches(service: MemoryService) -> int:
    return len(service.search.query(GLOBAL_PROJECT_ID, "deploys"))


@pytest.mark.slow
def test_verify_names_a_damaged_index_and_repair_rebuilds_it(
    damaged: Path, make_service: ServiceFactory
) -> None:
    found = ltm(damaged, "verify")
    assert found.returncode == 1, found.stdout + found.stderr
    assert "problem: the search index of global is damaged (database disk image is malformed)" in (
        found.stdout
    )
    assert REPAIR in found.stdout
    repaired = ltm(damaged, "verify", "--repair")
    assert repaired.returncode == 0, repaired.stdout + repaired.stderr
    assert "repair: rebuilt the search index of global from its rows" in repaired.stdout
    assert "0 problem(s)" in repaired.stdout
    [backup] = (damaged / "backups").glob("ltm-before-repair-*.sqlite")
    assert stat.S_IMODE(backup.stat().st_mode) == 0o600
    assert f"repair: backed up the database to {backup}" in repaired.stdout
    assert _searches(make_service(damaged)) == 2
    again = ltm(damaged, "verify", "--repair")
    assert "repair: no search index needed rebuilding" in again.stdout


def test_a_search_on_a_damaged_index_names_the_repair(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    service = make_service(tmp_path / "data")
    _fill(service)
    _damage(tmp_path / "data" / "ltm.sqlite")
    with pytest.raises(SearchIndexDamaged, match="the search index of global is damaged") as info:
        _searches(service)
    assert REPAIR in str(info.value)
    assert service.store.health().problems == (str(info.value),)
    request = Request("memory.search", {"project_id": "global", "query": "green"}, 1, False)
    with pytest.raises(RpcError) as answer:
        Dispatcher(service).dispatch(request, Session("unix"))
    assert answer.value.code == INTERNAL_ERROR
    assert REPAIR in answer.value.message
    assert ltm(tmp_path / "data", "verify", "--repair").returncode == 0  # another process
    assert _searches(service) == 2
    assert service.store.health().problems == ()


@pytest.mark.parametrize(
    "statement",
    [
        SEGMENTS_LOST,
        "DELETE FROM {table}_config",  # FTS5 cannot even open it: "invalid fts5 file format"
        "DROP TABLE {table}_data",  # nor this: "vtable constructor failed"
        # the table keeps no text: told to take out words a row was never indexed with
        "INSERT INTO {table} ({table}, rowid, title, content, tags) "
        "SELECT 'delete', pk, 'other words', 'other words', '' FROM memories LIMIT 1",
        # a row taken out as it was indexed: the index is sound, but out of step
        "INSERT INTO {table} ({table}, rowid, title, content, tags) "
        "SELECT 'delete', pk, title, content, '' FROM memories WHERE disabled = 0 LIMIT 1",
    ],
)
def test_every_kind_of_damage_is_found_and_repaired(
    make_service: ServiceFactory, tmp_path: Path, statement: str
) -> None:
    service = make_service(tmp_path / "data")
    _fill(service)
    service.close()
    _damage(tmp_path / "data" / "ltm.sqlite", statement)
    service = make_service(tmp_path / "data")
    assert any("the search index of global" in p for p in service.integrity.verify().problems)
    assert service.integrity.repair_search().rebuilt == ("the search index of global",)
    assert service.integrity.verify().problems == ()
    assert _searches(service) == 2


def test_the_observation_index_is_checked_and_repaired(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    service = make_service(tmp_path / "data")
    _fill(service)
    [forgotten, *_] = service.observations.page(GLOBAL_PROJECT_ID)
    service.observations.forget(forgotten.id, "gui")
    assert service.integrity.verify().problems == ()
    _damage(tmp_path / "data" / "ltm.sqlite", table="observation_fts")
    query = parse_query("deploy")
    with pytest.raises(SearchIndexDamaged, match="the observation search index is damaged"):
        service.store.search_observations([GLOBAL_PROJECT_ID], query, 5)
    assert any("the observation search index" in p for p in service.integrity.verify().problems)
    assert service.integrity.repair_search().rebuilt == ("the observation search index",)
    assert len(service.store.search_observations([GLOBAL_PROJECT_ID], query, 5)) == 2


@pytest.mark.slow
def test_restore_rebuilds_a_damaged_index_in_the_copy(
    damaged: Path, make_service: ServiceFactory, tmp_path: Path
) -> None:
    source = tmp_path / "damaged-backup.sqlite"
    (damaged / "ltm.sqlite").rename(source)
    target = tmp_path / "target"
    make_service(target).close()
    restored = ltm(target, "restore", str(source))
    assert restored.returncode == 0, restored.stderr
    assert "the search index of global is damaged" in restored.stderr
    assert "rebuilt in the restored copy" in restored.stderr
    assert ltm(target, "verify").returncode == 0
    assert _searches(make_service(target)) == 2
    with sqlite3.connect(source) as conn, pytest.raises(sqlite3.DatabaseError):  # untouched
        conn.execute("SELECT rowid FROM memory_fts_1 WHERE memory_fts_1 MATCH 'deploys'")
    conn.close()

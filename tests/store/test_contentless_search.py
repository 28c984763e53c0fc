"""Schema version 12: a scope's search table keeps no copy of the text (``content=''``).

A file of version 11 (each scope's table with its own copy) is migrated once, after a
backup: its tables are declared again without it and refilled, and search, edits,
removals and erasure work on them as before. A version 11 backup still restores.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from ltm_desktop.cli import main
from ltm_desktop.core.records import GLOBAL_PROJECT_ID, MemoryDraft
from ltm_desktop.core.service import MemoryService
from ltm_desktop.launching import open_service
from ltm_desktop.store.fts.indexing import reindex_scope
from ltm_desktop.store.fts.tables import create_memory_table, memory_table
from ltm_desktop.store.migrations import latest_version
from tests.conftest import ServiceFactory

TEXTS = ("Deploys go out on Fridays", "Deploys need a green build", "Staging is vm-12")


def _declared(db: Path) -> dict[str, str | None]:
    """Every table of the scopes' search: (name, CREATE statement), shadow tables too."""
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute("SELECT name, sql FROM sqlite_master WHERE name LIKE 'memory_fts_%'")
        return dict(rows)
    finally:
        conn.close()


def _search_tables(db: Path) -> dict[str, str]:
    """The scopes' FTS5 tables themselves: (name, CREATE statement)."""
    found = _declared(db).items()
    return {name: sql for name, sql in found if sql and sql.startswith("CREATE VIRTUAL")}


def _as_version_11(db: Path) -> None:
    """Make ``db`` what version 11 wrote: each scope's table with its copy of the text."""
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        conn.execute("BEGIN")
        for (pk,) in conn.execute("SELECT pk FROM projects").fetchall():
            conn.execute(f"DROP TABLE IF EXISTS {memory_table(pk)}")
            if conn.execute("SELECT 1 FROM memories WHERE project_pk = ?", (pk,)).fetchone():
                create_memory_table(conn, pk, contentless=False)
                reindex_scope(conn, pk)
        conn.execute("DROP TABLE project_paths")  # version 13's: not there yet
        # 12 and 13 to come; 14 (the audit's person and machine) is left applied: the
        # migrations that are not recorded run, whatever their number
        conn.execute("DELETE FROM schema_migrations WHERE version IN (12, 13)")
        conn.execute("PRAGMA user_version = 11")
        conn.execute("COMMIT")
    finally:
        conn.close()


def _searches(service: MemoryService, words: str) -> list[str]:
    return sorted(hit.memory.content for hit in service.search.query(GLOBAL_PROJECT_ID, words))


@pytest.fixture
def version_11(make_service: ServiceFactory, tmp_path: Path) -> Path:
    service = make_service(tmp_path / "data")
    for text in TEXTS:
        service.add(GLOBAL_PROJECT_ID, MemoryDraft(text, tags=("ops",)), "agent")
    service.close()
    db = tmp_path / "data" / "ltm.sqlite"
    _as_version_11(db)
    tables = _search_tables(db)
    assert tables
    assert not any("content = ''" in sql for sql in tables.values())
    assert all(f"{name}_content" in _declared(db) for name in tables)
    return db


def test_a_version_11_file_is_migrated_once_after_a_backup(
    version_11: Path, make_service: ServiceFactory
) -> None:
    service = make_service(version_11.parent)
    assert service.database.schema_version == latest_version()
    tables = _search_tables(version_11)
    assert tables
    assert all("content = ''" in sql for sql in tables.values())
    assert not any(name.endswith("_content") for name in _declared(version_11))  # no copy
    assert list((version_11.parent / "backups").glob("ltm-v11-*.sqlite"))
    assert _searches(service, "deploys") == sorted(TEXTS[:2])
    assert service.integrity.verify().problems == ()


def test_edits_removals_and_erasure_keep_the_index_in_step(
    version_11: Path, make_service: ServiceFactory
) -> None:
    service = make_service(version_11.parent)
    listed = {m.content: m for m in service.list_memories(GLOBAL_PROJECT_ID)}
    friday, green = listed[TEXTS[0]], listed[TEXTS[1]]
    changes = {"title": "Releases", "content": "Releases go out on Mondays", "tags": ["ci"]}
    service.update(friday.id, changes, "gui")
    service.remove(green.id, "gui")
    assert _searches(service, "deploys") == []
    assert _searches(service, "mondays") == ["Releases go out on Mondays"]
    service.restore(green.id, "gui")
    assert _searches(service, "green") == [TEXTS[1]]
    service.remove(green.id, "gui")
    service.eraser.erase(green.id, "gui")
    assert _searches(service, "green") == []
    assert service.integrity.verify().problems == ()  # FTS5's own check among them


def test_a_version_11_backup_restores_and_is_migrated(
    version_11: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The check of a backup's schema knows what version 11 declared."""
    backup = tmp_path / "v11.sqlite"
    source = sqlite3.connect(version_11)
    target = sqlite3.connect(backup)
    source.backup(target)
    source.close()
    target.close()
    assert main(["--data-dir", str(tmp_path / "restored"), "restore", str(backup)]) == 0
    capsys.readouterr()
    opened = open_service(tmp_path / "restored")
    try:
        assert opened.service.database.schema_version == latest_version()
        assert _searches(opened.service, "deploys") == sorted(TEXTS[:2])
        assert opened.service.integrity.verify().problems == ()
    finally:
        opened.service.close()

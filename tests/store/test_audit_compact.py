"""A new memory's audit event is stored without the values its own columns say
(``engine.audit_compact``), and every reader still sees the whole record: the history,
``verify``'s replay, an export; an old event stored whole reads as it always did."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from ltm_desktop import __version__
from ltm_desktop.core.history.auditing import memory_snapshot
from ltm_desktop.core.records import MemoryDraft
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.paths import DataPaths
from ltm_desktop.core.transfer import exporting
from ltm_desktop.core.transfer.importing import parse_file
from ltm_desktop.engine.audit_compact import MARK
from tests.conftest import ServiceFactory, make_draft

pytestmark = pytest.mark.every_backend  # what a history shows is every store's contract


def raw_after(service: MemoryService, memory_id: str) -> str | None:
    """The stored text of the memory's first event (SQLite), None on other engines."""
    db = DataPaths(service.paths.data_dir).db_path
    if not db.exists():
        return None
    with sqlite3.connect(db) as raw:
        row = raw.execute(
            "SELECT after FROM audit WHERE memory_id = ? ORDER BY seq LIMIT 1", (memory_id,)
        ).fetchone()
    return None if row is None else str(row[0])


def test_added_and_imported_memories_read_back_whole(service: MemoryService, project: str) -> None:
    added = service.add(project, make_draft("Deploys go out on Tuesdays"), "claude-code").memory
    imported = service.import_memories(
        project,
        [MemoryDraft("Use ruff for linting", ttl_days=30), MemoryDraft("Builds use uv")],
        "bench",
    )
    for memory in [added, *imported]:
        [first] = service.history.memory(memory.id)
        assert first.after == memory_snapshot(memory)
        assert list(first.after) == list(memory_snapshot(memory))  # in the record's order
        stored = raw_after(service, memory.id)
        if stored is not None:  # SQLite: the repeated values are not stored
            assert f'"{MARK}":' in stored
            assert memory.id not in stored
            assert len(stored) < len(json.dumps(first.after, ensure_ascii=False))
    assert service.integrity.verify().problems == ()


def test_a_changed_memory_replays_and_reads_as_before(service: MemoryService, project: str) -> None:
    memory = service.add(project, make_draft("Staging runs on port 8080"), "gui").memory
    service.update(memory.id, {"content": "Staging runs on port 9090", "importance": 9}, "gui")
    created, updated = service.history.memory(memory.id)
    assert created.after is not None
    assert created.after["content"] == "Staging runs on port 8080"
    assert updated.after == {"content": "Staging runs on port 9090", "importance": 9}
    assert service.integrity.verify().problems == ()


def test_an_exported_file_imported_elsewhere_keeps_its_own_times_and_source(
    service: MemoryService, make_service: ServiceFactory, project: str, tmp_path: Path
) -> None:
    original = service.add(project, make_draft("Releases are tagged vX.Y.Z"), "codex").memory
    export = tmp_path / "all.jsonl"
    with export.open("w", encoding="utf-8") as out:
        scopes = [p for p, _ in service.projects()]
        exporting.write_jsonl(service, scopes, out, app_version=__version__)
    elsewhere = make_service(tmp_path / "elsewhere")
    scope = elsewhere.resolve_scope(cwd="/home/dev/src/elsewhere", register=True)
    elsewhere.importer.import_parsed(parse_file(export), scope, "import")
    [memory] = elsewhere.list_memories(scope)
    [first] = elsewhere.history.memory(memory.id)
    assert first.after is not None
    snapshot = memory_snapshot(memory)
    assert {k: first.after[k] for k in snapshot} == snapshot
    assert first.after["created_at"] == original.created_at
    assert (first.after["content"], first.after["source"]) == (original.content, "codex")
    assert elsewhere.integrity.verify().problems == ()

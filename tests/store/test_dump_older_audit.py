"""A logical dump made before audit events named their person and machine (its audit
table without those columns) still reads: its events come back with them NULL, as the
chain hashed them; any other set of columns is refused."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from ltm_desktop.core.errors import NotADatabase
from ltm_desktop.core.records import GLOBAL_PROJECT_ID, MemoryDraft
from ltm_desktop.dumps import DumpRows, write_dump
from ltm_desktop.engine.copying import AUDIT
from ltm_desktop.store import SqliteRows
from tests.conftest import ServiceFactory

ADDED = len(AUDIT.added)


def _dump(make_service: ServiceFactory, tmp_path: Path) -> list[str]:
    service = make_service(tmp_path / "data")
    first = service.add(GLOBAL_PROJECT_ID, MemoryDraft("Deploys go out on Fridays"), "codex")
    service.update(first.memory.id, {"importance": 9}, "gui")
    paths = service.paths
    service.close()
    source = SqliteRows(paths.db_path, paths.backup_dir)
    out = io.StringIO()
    try:
        write_dump(source, out, app_version="t", engine="sqlite", schema_version=14, now=0.0)
    finally:
        source.close()
    return out.getvalue().splitlines(keepends=True)


def _as_older(lines: list[str], columns: int) -> list[str]:
    """The dump with its audit table's last ``columns`` columns taken away."""
    older, in_audit = [], False
    for line in lines:
        value = json.loads(line)
        if isinstance(value, dict) and value.get("type") == "table":
            in_audit = value["name"] == AUDIT.name
            if in_audit:
                value["columns"] = value["columns"][:-columns]
            line = json.dumps(value) + "\n"
        elif in_audit and isinstance(value, list):
            assert value[-ADDED:] == [None] * ADDED  # a bare service names nobody
            line = json.dumps(value[:-columns]) + "\n"
        older.append(line)
    return older


def test_an_older_dump_reads_its_events_with_no_person_or_machine(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    lines = _dump(make_service, tmp_path)
    now, older = tmp_path / "now.jsonl", tmp_path / "older.jsonl"
    now.write_text("".join(lines), encoding="utf-8")
    older.write_text("".join(_as_older(lines, ADDED)), encoding="utf-8")
    current = [row for batch in DumpRows(now).batches(AUDIT) for row in batch]
    read = [row for batch in DumpRows(older).batches(AUDIT) for row in batch]
    assert len(read) == 2
    assert read == current


def test_a_dump_with_other_audit_columns_is_refused(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    lines = _dump(make_service, tmp_path)
    odd = tmp_path / "odd.jsonl"
    odd.write_text("".join(_as_older(lines, 1)), encoding="utf-8")
    with pytest.raises(NotADatabase, match="audit has other columns"):
        DumpRows(odd)

"""The logical dump carries each project's paths (format 2), and a dump of format 1,
written before projects had paths, is still read (with none)."""

from __future__ import annotations

import io
import json
from pathlib import Path

from ltm_desktop.dumps import FORMAT_VERSION, DumpRows, write_dump
from ltm_desktop.engine.copying import PROJECT_PATHS, PROJECTS
from ltm_desktop.store.copying import SqliteRows
from tests.conftest import ServiceFactory


def _dump(make_service: ServiceFactory, tmp_path: Path) -> list[str]:
    data = tmp_path / "data"
    service = make_service(data)
    service.resolve_scope(cwd=str(tmp_path / "a"), register=True)
    service.resolve_scope(cwd=str(tmp_path / "b"), register=True)
    service.close()
    source = SqliteRows(data / "ltm.sqlite", data / "backups")
    out = io.StringIO()
    try:
        write_dump(source, out, app_version="0", engine="sqlite", schema_version=13, now=0.0)
    finally:
        source.close()
    return out.getvalue().splitlines()


def test_a_dump_holds_the_paths(make_service: ServiceFactory, tmp_path: Path) -> None:
    path = tmp_path / "dump.jsonl"
    path.write_text("\n".join(_dump(make_service, tmp_path)) + "\n", encoding="utf-8")
    rows = DumpRows(path)
    assert rows.count(PROJECT_PATHS) == 2
    paths = sorted(row[2] for batch in rows.batches(PROJECT_PATHS) for row in batch)
    assert paths == [str(tmp_path / "a"), str(tmp_path / "b")]
    assert FORMAT_VERSION == 2


def test_a_format_1_dump_has_no_paths(make_service: ServiceFactory, tmp_path: Path) -> None:
    lines = [json.loads(line) for line in _dump(make_service, tmp_path)]
    old: list[object] = []
    skipping = False
    for line in lines:
        if isinstance(line, dict) and line.get("type") == "table":
            skipping = line["name"] == PROJECT_PATHS.name
        if isinstance(line, dict) and line.get("type") == "header":
            line["format_version"] = 1
        if isinstance(line, dict) and line.get("type") == "end":
            del line["rows"][PROJECT_PATHS.name]
        if not skipping:
            old.append(line)
    path = tmp_path / "old.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in old), encoding="utf-8")
    rows = DumpRows(path)
    assert rows.count(PROJECT_PATHS) == 0
    assert list(rows.batches(PROJECT_PATHS)) == []
    assert rows.count(PROJECTS) == 3  # global, a and b

"""Import files that break the format: every bad field, number or character is refused
with the file and its line, and nothing of the file is written (no "(a bug)" error, and
no record that later breaks listing, search or export)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from ltm_desktop.core.transfer import importing
from ltm_desktop.core.transfer.importing import parse_file
from ltm_desktop.core.transfer.parsed import ImportFailed
from ltm_desktop.launching import open_service
from tests.console import CONSOLE_SCRIPT, assert_one_error_line

PROJECT_ID = "proj_ca0709b323d061b6"
HEADER = {"type": "header", "format": "ltm-desktop-export", "format_version": 1}
PROJECT = {
    "type": "project",
    "project_id": PROJECT_ID,
    "path": "/home/dev/shop",
    "name": "shop",
    "created_at": 1_796_225_284.1,
}
PROVENANCE = {
    "run_id": "run_1",
    "agent": "claude-code",
    "session_id": "s",
    "source": "text",
    "model": "m",
    "extracted_at": 1_796_225_292.0,
}
MEMORY = {
    "type": "memory",
    "id": "mem_1a2300000000000000001",
    "project_id": PROJECT_ID,
    "title": "Gradle",
    "content": "The build uses gradle",
    "category": "knowledge",
    "importance": 3,
    "tags": [],
    "created_at": 1_796_225_292.17,
    "updated_at": 1_796_225_292.17,
    "last_used_at": 1_796_225_352.46,
    "use_count": 2,
    "ttl_days": None,
    "disabled": False,
    "disabled_at": None,
    "source": "import",
    "superseded_by": None,
    "reviewed_at": None,
    "review_state": None,
    "provenance": PROVENANCE,
}
NANOSECONDS = 1_796_225_292_171_600_000
SURROGATE = "\ud800"


def export_file(
    path: Path, project: dict[str, Any] | None = None, memory: dict[str, Any] | None = None
) -> Path:
    """A one-memory export: header (line 1), project (line 2), memory (line 3)."""
    lines = [HEADER, PROJECT | (project or {}), MEMORY | (memory or {})]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def console(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [CONSOLE_SCRIPT, *args], capture_output=True, text=True, timeout=60, check=False
    )


@pytest.mark.parametrize(
    ("memory", "project", "expected"),
    [
        ({"created_at": NANOSECONDS}, {}, "line 3: created_at"),
        ({"created_at": 1e20}, {}, "line 3: created_at"),
        ({"created_at": 2**64}, {}, "line 3: created_at"),
        ({"created_at": -1}, {}, "line 3: created_at"),
        ({"updated_at": NANOSECONDS}, {}, "line 3: updated_at"),
        ({"last_used_at": 1e20}, {}, "line 3: last_used_at"),
        ({"disabled": True, "disabled_at": 2**64}, {}, "line 3: disabled_at"),
        ({"reviewed_at": 1e20}, {}, "line 3: reviewed_at"),
        (
            {"provenance": PROVENANCE | {"extracted_at": 1e20}},
            {},
            "line 3: provenance.extracted_at",
        ),
        (
            {"provenance": PROVENANCE | {"extracted_at": "soon"}},
            {},
            "line 3: provenance.extracted_at",
        ),
        (
            {"provenance": PROVENANCE | {"agent": SURROGATE}},
            {},
            "line 3: provenance.agent contains invalid Unicode",
        ),
        ({}, {"created_at": NANOSECONDS}, "line 2: created_at"),
        ({"use_count": 2**64}, {}, "line 3: use_count"),
        ({"importance": 2**64}, {}, "line 3: importance"),
        ({"ttl_days": 10**30}, {}, "line 3: ttl_days"),
        ({"id": SURROGATE}, {}, "line 3: id contains invalid Unicode"),
        ({"id": "mem\x00"}, {}, "line 3: id contains a NUL"),
        ({"source": SURROGATE}, {}, "line 3: source contains invalid Unicode"),
        ({"superseded_by": SURROGATE}, {}, "line 3: superseded_by contains invalid Unicode"),
        ({"files": ["src/" + SURROGATE]}, {}, "line 3: files: "),
        ({}, {"path": SURROGATE}, "line 2: path contains invalid Unicode"),
        ({}, {"name": SURROGATE}, "line 2: name contains invalid Unicode"),
    ],
)
def test_a_bad_field_is_refused_with_its_line(
    tmp_path: Path, memory: dict[str, Any], project: dict[str, Any], expected: str
) -> None:
    path = export_file(tmp_path / "x.jsonl", project, memory)
    with pytest.raises(ImportFailed) as caught:
        parse_file(path)
    assert str(caught.value).startswith(f"{path} {expected}")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('{"type": "memory", "importance": ' + "9" * 10_000 + "}", "line 3: invalid JSON"),
        (
            '{"type": "memory", "tags": ' + "[" * 100_000 + "]" * 100_000 + "}",
            "line 3: invalid JSON",
        ),
    ],
)
def test_numbers_and_nesting_json_cannot_hold_are_refused_with_their_line(
    tmp_path: Path, raw: str, expected: str
) -> None:
    path = export_file(tmp_path / "x.jsonl")
    path.write_text("\n".join([*path.read_text().splitlines()[:2], raw]) + "\n")
    with pytest.raises(ImportFailed) as caught:
        parse_file(path)
    assert str(caught.value).startswith(f"{path} {expected}")


def test_the_times_and_counts_of_a_sound_export_are_kept(tmp_path: Path) -> None:
    memory = {"created_at": 0, "use_count": 2**53 - 1}
    record = parse_file(export_file(tmp_path / "x.jsonl", memory=memory)).entries[0].record
    assert record is not None
    assert (record.created_at, record.use_count) == (0.0, 2**53 - 1)


@pytest.mark.parametrize(
    ("memory", "expected"),
    [
        ({"created_at": NANOSECONDS}, "line 3: created_at"),
        ({"use_count": 2**64}, "line 3: use_count"),
        ({"source": SURROGATE}, "line 3: source"),
    ],
)
def test_the_import_command_refuses_the_line_and_writes_nothing(
    tmp_path: Path, memory: dict[str, Any], expected: str
) -> None:
    path = export_file(tmp_path / "x.jsonl", memory=memory)
    open_service(tmp_path / "data").service.close()
    data = ["--data-dir", str(tmp_path / "data")]
    assert_one_error_line(console(*data, "import", str(path)), f"{path} {expected}")
    exported = console(*data, "export")
    assert exported.returncode == 0, exported.stderr
    assert '"type": "memory"' not in exported.stdout
    assert '"type":"memory"' not in exported.stdout


# -- what is read -----------------------------------------------------------------------


def test_a_fifo_is_refused_at_once_not_waited_on(tmp_path: Path) -> None:
    fifo = tmp_path / "memories.jsonl"
    os.mkfifo(fifo)
    result = console("--data-dir", str(tmp_path / "data"), "import", str(fifo))
    assert_one_error_line(result, str(fifo), "not a regular file (a FIFO)")


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_an_endless_device_is_refused_not_read(tmp_path: Path) -> None:
    result = console("--data-dir", str(tmp_path / "data"), "import", "/dev/zero")
    assert_one_error_line(result, "/dev/zero", "not a regular file (a character device)")


def test_a_directory_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(ImportFailed, match=rf"{tmp_path}: not a regular file \(a directory\)"):
        parse_file(tmp_path)


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="no /proc")
def test_the_limit_holds_for_a_file_that_states_a_wrong_size(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """/proc's files say they are empty; what is read is bounded all the same."""
    maps = Path("/proc/self/maps")
    assert maps.stat().st_size == 0
    monkeypatch.setattr(importing, "MAX_FILE_BYTES", 100)
    with pytest.raises(
        ImportFailed, match=rf"{maps}: holds more than an import takes \(100 bytes\)"
    ):
        parse_file(maps, "claude-md")

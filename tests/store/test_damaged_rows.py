"""A memory row whose JSON columns were damaged behind the app's back (by hand, or by
another tool): it reads as empty instead of failing every read, and ``verify`` names it."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import pytest

from ltm_desktop.core.records import GLOBAL_PROJECT_ID, MemoryDraft
from ltm_desktop.core.service import MemoryService
from tests.conftest import ServiceFactory
from tests.console import ltm

DAMAGE = "UPDATE memories SET tags = 'notjson', files = '{', provenance = '[1]' WHERE id = ?"


def _damage(db: Path, memory_id: str, sql: str = DAMAGE) -> None:
    with sqlite3.connect(db) as conn:
        conn.execute(sql, (memory_id,))
    conn.close()


def _filled(service: MemoryService) -> tuple[str, str]:
    """(a memory to damage, one left alone)."""
    draft = MemoryDraft("Deploys go out on Fridays", tags=("deploy",))
    damaged = service.add(GLOBAL_PROJECT_ID, draft, "agent").memory.id
    sound = service.add(GLOBAL_PROJECT_ID, MemoryDraft("Use tabs in Makefiles"), "agent")
    return damaged, sound.memory.id


@pytest.fixture
def damaged_dir(make_service: ServiceFactory, tmp_path: Path) -> tuple[Path, str, str]:
    """A closed data dir with one damaged memory: (the dir, its id, a sound memory's id)."""
    service = make_service(tmp_path / "data")
    damaged, sound = _filled(service)
    db = Path(service.store.location)
    service.close()
    _damage(db, damaged)
    return tmp_path / "data", damaged, sound


def test_a_damaged_row_reads_as_empty_and_is_logged_once(
    make_service: ServiceFactory, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    service = make_service(tmp_path / "data")
    damaged, sound = _filled(service)
    _damage(Path(service.store.location), damaged)
    with caplog.at_level(logging.WARNING, logger="ltm_desktop.store.rows"):
        memory = service.get(damaged)
        listed = {m.id: m for m in service.list_memories(GLOBAL_PROJECT_ID)}
    assert (memory.tags, memory.files, memory.provenance) == ((), (), None)
    assert memory.content == "Deploys go out on Fridays"
    assert set(listed) == {damaged, sound}
    warnings = [r.getMessage() for r in caplog.records if damaged in r.getMessage()]
    assert len(warnings) == 1, warnings
    assert "tags, files, provenance columns are not valid JSON" in warnings[0]


@pytest.mark.parametrize("value", ["5", '"tags"', "[1, 2]", '{"a": 1}', "[" * 100_000])
def test_json_of_the_wrong_shape_reads_as_no_tags(
    make_service: ServiceFactory, tmp_path: Path, value: str
) -> None:
    service = make_service(tmp_path / "data")
    damaged, _ = _filled(service)
    sql = "UPDATE memories SET tags = ?2 WHERE id = ?1"
    with sqlite3.connect(service.store.location) as conn:
        conn.execute(sql, (damaged, value))
    conn.close()
    assert service.get(damaged).tags == ()


def test_verify_names_the_row_and_its_columns(damaged_dir: tuple[Path, str, str]) -> None:
    data_dir, damaged, _ = damaged_dir
    done = ltm(data_dir, "verify")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    for column in ("tags", "files", "provenance"):
        assert f"memory {damaged} has a {column} column that is not valid JSON" in done.stdout


@pytest.mark.slow
def test_status_export_and_import_still_work(
    damaged_dir: tuple[Path, str, str], tmp_path: Path
) -> None:
    data_dir, damaged, sound = damaged_dir
    exported = tmp_path / "out.jsonl"
    for args in (("status",), ("export", "--with-history", "-o", str(exported))):
        done = ltm(data_dir, *args)
        assert done.returncode == 0, done.stderr
        assert "Traceback" not in done.stderr
    text = exported.read_text(encoding="utf-8")
    assert damaged in text
    assert sound in text
    notes = tmp_path / "CLAUDE.md"
    notes.write_text("# Notes\n\n- Staging is vm-12\n", encoding="utf-8")
    done = ltm(data_dir, "import", str(notes), "--project", GLOBAL_PROJECT_ID)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr


def test_a_damaged_audit_event_reads_as_no_values_and_verify_names_it(
    damaged_dir: tuple[Path, str, str], make_service: ServiceFactory
) -> None:
    data_dir, _, sound = damaged_dir
    db = data_dir / "ltm.sqlite"
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TRIGGER audit_is_append_only_update")
        conn.execute("UPDATE audit SET after = 'notjson' WHERE memory_id = ?", (sound,))
    conn.close()
    service = make_service(data_dir)
    assert [event.after for event in service.history.memory(sound)] == [None]
    service.close()
    done = ltm(data_dir, "verify")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert f"(created of {sound}) was changed after it was written" in done.stdout


@pytest.mark.parametrize(
    "value", ["notjson", "[1, 2]", '["a", null]', '{"a": 1}', "5", 5, b"\x00", "[" * 5_000]
)
@pytest.mark.parametrize("column", ["tags", "files"])
def test_verify_finds_every_list_that_does_not_decode(
    make_service: ServiceFactory, tmp_path: Path, column: str, value: object
) -> None:
    service = make_service(tmp_path / "data")
    damaged, sound = _filled(service)
    with sqlite3.connect(service.store.location) as conn:
        conn.execute(f"UPDATE memories SET {column} = ? WHERE id = ?", (value, damaged))
    conn.close()
    problems = service.store.verify(quick=False).problems
    assert f"memory {damaged} has a {column} column that is not valid JSON" in "\n".join(problems)
    assert sound not in "\n".join(problems)

"""Schema versioning, backups, and refusing files that are not ours to touch."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from ltm_desktop.core.errors import DatabaseTooNew, NotADatabase, StorageError
from ltm_desktop.store import SqliteStore
from ltm_desktop.store.migrations import MIGRATIONS, Migration, latest_version


def open_at(tmp_path: Path, migrations: tuple[Migration, ...] = MIGRATIONS) -> SqliteStore:
    return SqliteStore(tmp_path / "ltm.sqlite", tmp_path / "backups", migrations)


def test_new_database_is_at_latest_version_in_wal_mode(tmp_path: Path) -> None:
    store = open_at(tmp_path)
    store.close()
    conn = sqlite3.connect(tmp_path / "ltm.sqlite")
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == latest_version()
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        names = [r[0] for r in conn.execute("SELECT name FROM schema_migrations ORDER BY version")]
        assert names == [m.name for m in MIGRATIONS]
    finally:
        conn.close()
    assert not (tmp_path / "backups").exists()  # nothing to back up on a fresh file


def test_migration_backs_up_first_and_runs_in_order(tmp_path: Path) -> None:
    open_at(tmp_path).close()
    current = latest_version()
    nxt = Migration(current + 1, "add a note", ("ALTER TABLE memories ADD COLUMN note TEXT",))
    store = open_at(tmp_path, (*MIGRATIONS, nxt))
    try:
        assert store.schema_version == current + 1
        assert store.migration_backup is not None
        assert store.migration_backup.exists()
    finally:
        store.close()
    backup = sqlite3.connect(store.migration_backup)
    try:
        assert backup.execute("PRAGMA user_version").fetchone()[0] == current
    finally:
        backup.close()


def test_failing_migration_rolls_back(tmp_path: Path) -> None:
    open_at(tmp_path).close()
    current = latest_version()
    bad = Migration(current + 1, "broken", ("CREATE TABLE extra (x)", "THIS IS NOT SQL"))
    with pytest.raises(StorageError, match=f"migration {current + 1}"):
        open_at(tmp_path, (*MIGRATIONS, bad))
    conn = sqlite3.connect(tmp_path / "ltm.sqlite")
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == current
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        assert "extra" not in tables
    finally:
        conn.close()


def test_newer_database_is_refused_and_untouched(tmp_path: Path) -> None:
    path = tmp_path / "ltm.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE future (x)")
    conn.execute("PRAGMA user_version = 99")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    with pytest.raises(DatabaseTooNew, match="newer ltm-desktop"):
        open_at(tmp_path)
    assert path.read_bytes() == before
    assert not (tmp_path / "ltm.sqlite-wal").exists()


@pytest.mark.parametrize(
    "content",
    [
        b"this is a text file, not a database\n",
        b"\x00\xff" * 600,
        b"SQLite format 3\x00" + b"\x07" * 4000,
    ],
)
def test_foreign_or_corrupt_files_are_reported_and_never_overwritten(
    tmp_path: Path, content: bytes
) -> None:
    path = tmp_path / "ltm.sqlite"
    path.write_bytes(content)
    with pytest.raises(NotADatabase) as info:
        open_at(tmp_path)
    assert str(path) in str(info.value)
    assert path.read_bytes() == content


def test_directory_in_place_of_database(tmp_path: Path) -> None:
    (tmp_path / "ltm.sqlite").mkdir()
    with pytest.raises(NotADatabase, match="directory"):
        open_at(tmp_path)


def test_closed_store_refuses_work(tmp_path: Path) -> None:
    store = open_at(tmp_path)
    store.close()
    store.close()  # idempotent
    with pytest.raises(StorageError, match="closed"):
        store.list_projects()


def test_data_files_are_private(tmp_path: Path) -> None:
    import os
    import stat

    from ltm_desktop.launching import open_service

    old = os.umask(0o022)
    try:
        opened = open_service(tmp_path / "data", tmp_path / "none.toml")
        service = opened.service
        project = service.resolve_scope(cwd="/srv/app", register=True)
        from ltm_desktop.core.records import MemoryDraft

        service.add(project, MemoryDraft("secret-ish note"), "a")
        service.close()
    finally:
        os.umask(old)
    data = tmp_path / "data"
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    for name in ("ltm.sqlite", "ltm.sqlite-wal", "ltm.sqlite-shm"):
        if (data / name).exists():
            assert stat.S_IMODE((data / name).stat().st_mode) == 0o600, name
    assert stat.S_IMODE((data / "precis").stat().st_mode) == 0o700


OPEN_SCRIPT = """
import sys
from ltm_desktop.launching import open_service
open_service(sys.argv[1], sys.argv[1] + "/none.toml").service.close()
"""


@pytest.mark.slow
def test_several_processes_can_create_a_new_data_dir_at_once(tmp_path: Path) -> None:
    import subprocess
    import sys

    for trial in range(3):
        target = tmp_path / f"fresh{trial}"
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", OPEN_SCRIPT, str(target)], stderr=subprocess.PIPE, text=True
            )
            for _ in range(3)
        ]
        results = [(p.wait(timeout=120), p.stderr.read()) for p in procs]  # type: ignore[union-attr]
        for p in procs:
            p.stderr.close()  # type: ignore[union-attr]
        assert [code for code, _ in results] == [0, 0, 0], [err for _, err in results]


def test_a_new_database_and_its_journals_are_private_while_open(tmp_path: Path) -> None:
    """The file is made private by path (chmod) before SQLite writes anything, so the -wal
    and -shm it creates next inherit 0600; the file is never opened outside SQLite."""
    import os
    import stat

    old = os.umask(0o022)
    try:
        store = open_at(tmp_path)
    finally:
        os.umask(old)
    try:
        for name in ("ltm.sqlite", "ltm.sqlite-wal", "ltm.sqlite-shm"):
            assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o600, name
    finally:
        store.close()

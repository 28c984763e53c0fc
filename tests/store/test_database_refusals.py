"""What the store refuses to open as its database: a symbolic link (or symlinked journal),
and, for a process that must not create one, no file, an empty file or a foreign one."""

from __future__ import annotations

import sqlite3
import stat
from pathlib import Path

import pytest

from ltm_desktop.core.errors import NotADatabase, UnsafePath
from ltm_desktop.store import open_store


def _open(data: Path, *, create: bool = True) -> None:
    open_store(data / "ltm.sqlite", data / "backups", create=create).close()


def test_without_create_no_file_and_an_empty_file_are_refused(tmp_path: Path) -> None:
    db = tmp_path / "ltm.sqlite"
    with pytest.raises(NotADatabase, match="there is no database at"):
        _open(tmp_path, create=False)
    assert not db.exists()
    db.touch()
    with pytest.raises(NotADatabase, match=r"is empty \(0 bytes\)"):
        _open(tmp_path, create=False)
    assert db.stat().st_size == 0


def test_without_create_an_existing_database_opens(tmp_path: Path) -> None:
    _open(tmp_path)
    _open(tmp_path, create=False)


def test_an_empty_file_made_into_the_database_is_private(tmp_path: Path) -> None:
    db = tmp_path / "ltm.sqlite"
    db.touch(mode=0o644)
    db.chmod(0o644)
    _open(tmp_path)
    assert stat.S_IMODE(db.stat().st_mode) == 0o600
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] > 0
    conn.close()


@pytest.mark.parametrize("name", ["ltm.sqlite", "ltm.sqlite-wal", "ltm.sqlite-shm"])
def test_a_symlinked_database_or_journal_is_refused(tmp_path: Path, name: str) -> None:
    elsewhere = tmp_path / "elsewhere"
    _open(elsewhere)
    data = tmp_path / "data"
    if name == "ltm.sqlite":
        data.mkdir()
        (data / name).symlink_to(elsewhere / name)
    else:
        _open(data)
        (data / name).symlink_to(elsewhere / "victim")
    with pytest.raises(UnsafePath, match=f"{data / name} is a symbolic link"):
        _open(data)
    assert not (elsewhere / "victim").exists()

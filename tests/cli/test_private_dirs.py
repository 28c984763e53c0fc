"""Private directories and lock files: 0700 whatever the umask, no symlinks, no strangers'."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from ltm_desktop.core.errors import UnsafePath
from ltm_desktop.core.files.filelock import FileLock, make_private_dirs
from ltm_desktop.core.memory_md.files import write_atomically
from ltm_desktop.core.settings.paths import prepare_data_dir
from ltm_desktop.launching import open_service
from tests.console import NOBODY

needs_root = pytest.mark.skipif(
    os.getuid() != 0, reason="only root can give a file to another user (nobody)"
)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


@pytest.fixture
def umask_000() -> Iterator[None]:
    old = os.umask(0)
    try:
        yield
    finally:
        os.umask(old)


def test_new_dirs_are_0700_whatever_the_umask(tmp_path: Path, umask_000: None) -> None:
    make_private_dirs(tmp_path / "a" / "b" / "c", within=tmp_path)
    for path in (tmp_path / "a", tmp_path / "a" / "b", tmp_path / "a" / "b" / "c"):
        assert mode(path) == 0o700, path


def test_missing_parents_of_the_data_dir_are_0700_whatever_the_umask(
    tmp_path: Path, umask_000: None
) -> None:
    data = tmp_path / "x" / "y" / "data"
    opened = open_service(data)
    opened.service.close()
    assert [mode(p) for p in (tmp_path / "x", tmp_path / "x" / "y", data)] == [0o700] * 3


@pytest.mark.parametrize("inside", ["precis", "precis/proj_0123456789abcdef"])
def test_a_symlinked_dir_inside_the_data_dir_is_never_followed(tmp_path: Path, inside: str) -> None:
    data = tmp_path / "data"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (data / inside).parent.mkdir(parents=True)
    (data / inside).symlink_to(elsewhere)
    target = data / "precis" / "proj_0123456789abcdef" / "MEMORY.md"
    with pytest.raises(UnsafePath, match="symbolic link"):
        write_atomically(target, "secret notes")
    assert list(elsewhere.iterdir()) == []


@needs_root
def test_someone_elses_dir_inside_the_data_dir_is_refused(tmp_path: Path) -> None:
    scope = tmp_path / "data" / "precis" / "global"
    scope.mkdir(parents=True)
    os.chown(scope, NOBODY, NOBODY)
    with pytest.raises(UnsafePath, match="another user"):
        write_atomically(scope / "MEMORY.md", "notes")
    assert list(scope.iterdir()) == []


def test_make_private_dirs_stays_within(tmp_path: Path) -> None:
    with pytest.raises(UnsafePath):
        make_private_dirs(tmp_path / "a" / ".." / ".." / "b", within=tmp_path / "a")
    with pytest.raises(UnsafePath):
        make_private_dirs(tmp_path / "b", within=tmp_path / "a")
    assert list(tmp_path.iterdir()) == []


def test_a_symlinked_lock_file_is_refused_and_its_target_untouched(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    lock_path = tmp_path / "server.lock"
    lock_path.symlink_to(victim)
    with pytest.raises(UnsafePath, match="symbolic link"):
        FileLock(lock_path).acquire()
    assert not victim.exists()


def test_a_lock_path_that_is_not_a_file_is_refused(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "server.lock")
    with pytest.raises(UnsafePath, match="not a regular file"):
        FileLock(tmp_path / "server.lock").acquire(blocking=False)


@needs_root
def test_someone_elses_lock_file_is_refused(tmp_path: Path) -> None:
    lock_path = tmp_path / "server.lock"
    lock_path.touch()
    os.chown(lock_path, NOBODY, NOBODY)
    with pytest.raises(UnsafePath, match="another user"):
        FileLock(lock_path).acquire()


def test_a_lock_checked_within_refuses_a_symlinked_dir(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "precis").symlink_to(tmp_path / "elsewhere")
    lock = FileLock(tmp_path / "data" / "precis" / ".lock", within=tmp_path / "data")
    with pytest.raises(UnsafePath, match="symbolic link"):
        lock.acquire()
    assert list((tmp_path / "elsewhere").iterdir()) == []


@pytest.mark.parametrize("loose", [0o777, 0o770, 0o702, 0o720])
def test_a_data_dir_others_can_write_to_is_refused(tmp_path: Path, loose: int) -> None:
    data = tmp_path / "data"
    data.mkdir()
    data.chmod(loose)
    with pytest.raises(UnsafePath) as info:
        prepare_data_dir(data)
    assert str(data) in str(info.value)
    assert f"chmod 700 {data}" in str(info.value)
    assert mode(data) == loose  # not "fixed" behind the owner's back
    assert list(data.iterdir()) == []


@needs_root
def test_a_data_dir_of_another_user_is_refused(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    os.chown(data, NOBODY, NOBODY)
    with pytest.raises(UnsafePath, match="another user"):
        prepare_data_dir(data)
    assert list(data.iterdir()) == []


def test_a_data_dir_inside_a_dir_anyone_can_replace_it_in_is_refused(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    (shared / "data").mkdir(mode=0o700)
    with pytest.raises(UnsafePath, match="anyone can write"):
        prepare_data_dir(shared / "data")


def test_a_private_data_dir_in_a_sticky_dir_is_accepted(tmp_path: Path) -> None:
    sticky = tmp_path / "tmp"
    sticky.mkdir()
    sticky.chmod(0o1777)
    assert prepare_data_dir(sticky / "data") == sticky / "data"
    assert mode(sticky / "data") == 0o700


def test_a_data_dir_reached_through_a_symlink_is_fine(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir(mode=0o700)
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert prepare_data_dir(tmp_path / "link") == tmp_path / "link"


@pytest.mark.parametrize("inside", ["precis", "backups"])
def test_symlinked_precis_or_backups_are_refused_at_startup(tmp_path: Path, inside: str) -> None:
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    (tmp_path / "elsewhere").mkdir()
    (data / inside).symlink_to(tmp_path / "elsewhere")
    with pytest.raises(UnsafePath, match="symbolic link"):
        open_service(data)
    assert list((tmp_path / "elsewhere").iterdir()) == []
    assert not (data / "ltm.sqlite").exists()

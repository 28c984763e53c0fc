"""The store never lies: faults in its files are detected and reported, never absorbed.

A failing checkpointer keeps trying and the WAL stays bounded; files removed or replaced
under an open store stop it from acknowledging writes; a full disk fails writes clearly
and they resume when space is freed; opening a store never drops this process's locks.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ltm_desktop.backups import backup_launch
from ltm_desktop.core import rules, writing
from ltm_desktop.core.errors import DatabaseReplaced, StorageError
from ltm_desktop.core.privacy.screening import Screen
from ltm_desktop.core.records import GLOBAL_PROJECT_ID
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.launch import resolve_launch
from ltm_desktop.core.settings.paths import DataPaths
from ltm_desktop.store import SqliteStore, checkpointer, connection, opening
from ltm_desktop.store.migrations import MIGRATIONS, Migration, latest_version
from tests.api.conftest import wait_until
from tests.conftest import ServiceFactory, make_draft

LIMIT = 1024 * 1024


@pytest.fixture
def fast_checkpoints(monkeypatch: pytest.MonkeyPatch) -> None:
    """Checkpoint every 10 ms, back off to at most 50 ms, truncate a WAL past 1 MiB."""
    for name, value in (
        ("INTERVAL_SECONDS", 0.01),
        ("MAX_BACKOFF_SECONDS", 0.05),
        ("TRIGGER_BYTES", 64 * 1024),
        ("LIMIT_BYTES", LIMIT),
    ):
        monkeypatch.setattr(checkpointer, name, value, raising=False)
    monkeypatch.setattr(connection, "JOURNAL_SIZE_LIMIT", 32 * 1024, raising=False)


class Fault:
    """Makes the checkpointer's checkpoints fail with ``error`` while ``active``."""

    def __init__(self, error: Exception) -> None:
        self.error = error
        self.active = True
        self.failures = 0


class FaultyConnection:
    """An sqlite3 connection whose checkpoints fail on demand (C methods cannot be patched)."""

    def __init__(self, conn: sqlite3.Connection, fault: Fault) -> None:
        self._conn = conn
        self._fault = fault

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        if self._fault.active and "wal_checkpoint" in sql:
            self._fault.failures += 1
            raise self._fault.error
        return self._conn.execute(sql, *args)

    def close(self) -> None:
        self._conn.close()


def wal_of(service: MemoryService) -> Path:
    return Path(f"{service.paths.db_path}-wal")


@pytest.mark.parametrize(
    "error",
    [
        sqlite3.OperationalError("database or disk is full"),
        sqlite3.OperationalError("disk I/O error"),
        RuntimeError("a bug"),
    ],
    ids=["disk-full", "io-error", "bug"],
)
def test_the_checkpointer_survives_failures_and_the_wal_shrinks_after(
    monkeypatch: pytest.MonkeyPatch,
    fast_checkpoints: None,
    make_service: ServiceFactory,
    error: Exception,
) -> None:
    fault = Fault(error)
    real_connect = connection.connect
    monkeypatch.setattr(
        checkpointer, "connect", lambda *a, **k: FaultyConnection(real_connect(*a, **k), fault)
    )
    service = make_service()
    project = service.resolve_scope(cwd="/srv/app", register=True)
    added = 0
    while wal_of(service).stat().st_size <= 2 * LIMIT:  # nothing is copied back meanwhile
        service.add(project, make_draft(f"fact {added} about the w{added}x module"), "a")
        added += 1
        assert added < 5_000, "the WAL never grew"
    wait_until(lambda: fault.failures >= 3)  # failed, then tried again: the thread lives on
    problems = service.store.health().problems
    assert any("checkpoint" in problem and str(error) in problem for problem in problems)

    fault.active = False  # the disk was freed
    wait_until(lambda: wal_of(service).stat().st_size <= LIMIT)  # no write needed
    wait_until(lambda: service.store.health().ok)
    service.add(project, make_draft("written after the fault went away"), "a")
    assert service.count_memories(project) == added + 1


@pytest.mark.slow
def test_a_burst_of_writes_keeps_the_wal_bounded(
    fast_checkpoints: None, make_service: ServiceFactory
) -> None:
    service = make_service()
    project = service.resolve_scope(cwd="/srv/app", register=True)
    for i in range(300):  # about 25 MB of WAL if nothing were copied back
        service.add(project, make_draft(f"burst fact {i} about the b{i}q module"), "a")
    wait_until(lambda: wal_of(service).stat().st_size <= LIMIT)


class FailingCommits:
    """The writer connection, whose commits fail as on a full disk while ``failing``."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self.failing = False

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        if self.failing and sql == "COMMIT":
            raise sqlite3.OperationalError("database or disk is full")
        return self._conn.execute(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


def test_a_failed_write_is_reported_until_a_write_succeeds(
    monkeypatch: pytest.MonkeyPatch, make_service: ServiceFactory
) -> None:
    writers: list[FailingCommits] = []
    real_connect = connection.connect

    def connect(*args: Any, **kwargs: Any) -> FailingCommits:
        writers.append(FailingCommits(real_connect(*args, **kwargs)))
        return writers[-1]

    monkeypatch.setattr(opening, "connect", connect)
    service = make_service()
    project = service.resolve_scope(cwd="/srv/app", register=True)
    service.add(project, make_draft("written before the disk filled up"), "a")
    writers[0].failing = True
    with pytest.raises(StorageError, match="full") as info:
        service.add(project, make_draft("not written: the disk is full"), "a")
    assert str(service.paths.db_path) in str(info.value)
    problems = service.store.health().problems
    assert len(problems) == 1
    assert "the last write failed" in problems[0]
    assert "full" in problems[0]

    writers[0].failing = False  # space was freed: no restart needed
    service.add(project, make_draft("written once there was space again"), "a")
    assert service.store.health().ok
    assert service.count_memories(project) == 2


# -- files removed or replaced under an open store ---------------------------


def remove_database(data: Path) -> None:
    (data / "ltm.sqlite").unlink()


def remove_wal(data: Path) -> None:
    (data / "ltm.sqlite-wal").unlink()


def remove_shm(data: Path) -> None:
    (data / "ltm.sqlite-shm").unlink()


def replace_database(data: Path) -> None:
    """Another database moved over ours (never copy ours: that opens its file)."""
    other = data.parent / "other.sqlite"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE unrelated (x)")
    conn.commit()
    conn.close()
    os.replace(other, data / "ltm.sqlite")


def remove_data_dir(data: Path) -> None:
    shutil.rmtree(data)


def replace_data_dir(data: Path) -> None:
    data.rename(data.with_name("moved-away"))
    data.mkdir()
    conn = sqlite3.connect(data / "ltm.sqlite")
    conn.execute("CREATE TABLE unrelated (x)")
    conn.commit()
    conn.close()


DAMAGE = [
    remove_database,
    remove_wal,
    remove_shm,
    replace_database,
    remove_data_dir,
    replace_data_dir,
]


@pytest.mark.parametrize("damage", DAMAGE, ids=[d.__name__ for d in DAMAGE])
def test_writes_are_refused_once_the_files_are_not_the_ones_open(
    service: MemoryService, project: str, damage: Callable[[Path], None]
) -> None:
    kept = service.add(project, make_draft("acknowledged while the files were in place"), "a")
    assert service.memory_md.flush()  # no MEMORY.md is being written while the files go away
    damage(service.paths.data_dir)
    with pytest.raises(DatabaseReplaced) as info:
        service.add(project, make_draft("this would be acknowledged and lost"), "a")
    message = str(info.value)
    assert str(service.paths.db_path) in message
    assert "restart" in message.lower()
    health = service.store.health()
    assert not health.ok
    assert any("removed or replaced" in problem for problem in health.problems)
    with pytest.raises(DatabaseReplaced):  # reads from the lost files would mislead too
        service.get(kept.memory.id)


@pytest.mark.parametrize("damage", DAMAGE, ids=[d.__name__ for d in DAMAGE])
def test_reads_are_refused_once_the_files_are_not_the_ones_open_without_any_write(
    make_service: ServiceFactory,
    tmp_path: Path,
    damage: Callable[[Path], None],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A process that only reads (an ``mcp`` serving searches, after a ``restore``) must
    not answer from files that are no longer the data dir's: the readers find out by
    themselves, not only when the checkpointer (here: asleep) happens to look."""
    monkeypatch.setattr(checkpointer, "INTERVAL_SECONDS", 3600.0, raising=False)
    writer = make_service(tmp_path / "data")
    project = writer.resolve_scope(cwd="/srv/app", register=True)
    kept = writer.add(project, make_draft("read while the files were in place"), "a")
    writer.close()
    reader = SqliteStore(DataPaths(tmp_path / "data").db_path, tmp_path / "data" / "backups")
    try:
        assert reader.get_memory(kept.memory.id).content == "read while the files were in place"
        damage(tmp_path / "data")

        def refused() -> bool:  # readers look at the files at most every LOOK_SECONDS
            try:
                reader.get_memory(kept.memory.id)
            except DatabaseReplaced:
                return True
            return False

        wait_until(refused, timeout=5)
    finally:
        reader.close()


def test_health_notices_a_removed_database_without_any_write(service: MemoryService) -> None:
    assert service.store.health().ok
    remove_database(service.paths.data_dir)
    health = service.store.health()
    assert not health.ok
    assert str(service.paths.db_path) in health.problems[0]


def test_a_new_reading_thread_never_recreates_a_removed_database(
    service: MemoryService, project: str
) -> None:
    remove_database(service.paths.data_dir)
    errors: list[Exception] = []

    def read() -> None:  # a thread with no connection yet opens one
        try:
            service.list_memories(project)
        except Exception as exc:
            errors.append(exc)

    thread = threading.Thread(target=read)
    thread.start()
    thread.join()
    assert len(errors) == 1
    assert isinstance(errors[0], DatabaseReplaced)
    assert not service.paths.db_path.exists()


def test_a_removed_database_is_noticed_without_any_call(
    fast_checkpoints: None, service: MemoryService, project: str
) -> None:
    service.list_memories(project)  # this thread's reader is open, and would go on reading
    remove_database(service.paths.data_dir)

    def reads_refused() -> bool:
        try:
            service.list_memories(project)
        except DatabaseReplaced:
            return True
        return False

    wait_until(reads_refused)  # the checkpointer looked, with no write or health call


# -- a real full disk ----------------------------------------------------------


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 4 MiB tmpfs, when this process may mount one (root in a sandbox)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root; the injected disk-full test runs anyway")
    mount_point = tmp_path / "small"
    mount_point.mkdir()
    result = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=4m,mode=0700", "tmpfs", str(mount_point)],
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({result.stderr.strip()})")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=True)


def test_a_full_disk_fails_writes_clearly_and_they_resume_once_space_is_freed(
    small_disk: Path, fast_checkpoints: None
) -> None:
    store = SqliteStore(small_disk / "data" / "ltm.sqlite", small_disk / "data" / "backups")
    try:
        ballast = small_disk / "ballast"
        free = os.statvfs(small_disk).f_bavail * os.statvfs(small_disk).f_frsize
        ballast.write_bytes(b"\0" * max(0, free - 512 * 1024))
        added = 0

        def add(text: str) -> None:
            draft = rules.validate_draft(make_draft(text))
            with store.write() as txn:
                writing.add_memory(
                    txn, GLOBAL_PROJECT_ID, draft, "a", 1_800_000_000.0 + added, screen=Screen()
                )

        failure: StorageError | None = None
        while failure is None and added < 10_000:
            try:
                add(f"fact {added} about the f{added}z module " + "padding " * 50)
                added += 1
            except StorageError as exc:
                failure = exc
        assert failure is not None, "the disk never filled up"
        assert "full" in str(failure)
        assert str(store.location) in str(failure)
        assert added > 0
        assert not store.health().ok
        assert any("full" in problem for problem in store.health().problems)

        ballast.unlink()  # space is freed: no restart needed
        add("written once there was space again")
        added += 1
        wait_until(lambda: store.health().ok)
        wait_until(lambda: Path(f"{store.location}-wal").stat().st_size <= LIMIT)
    finally:
        store.close()
    check = sqlite3.connect(small_disk / "data" / "ltm.sqlite")
    try:
        assert check.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert check.execute("SELECT count(*) FROM memories").fetchone()[0] == added
    finally:
        check.close()


def fill(disk: Path, leave: int = 0) -> Path:
    """A ballast file taking all but ``leave`` bytes of the free space of ``disk``."""
    ballast = disk / "ballast"
    free = os.statvfs(disk).f_bavail * os.statvfs(disk).f_frsize
    ballast.write_bytes(b"\0" * max(0, free - leave))
    return ballast


def test_a_backup_onto_a_full_disk_is_a_clear_error_and_leaves_no_partial_copy(
    small_disk: Path, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    store = SqliteStore(data / "ltm.sqlite", data / "backups")
    store.close()
    fill(small_disk)

    with pytest.raises(StorageError, match="is full") as failure:
        backup_launch(resolve_launch(data, tmp_path / "config.toml"), small_disk / "copy.sqlite")

    assert "a bug" not in str(failure.value)
    assert str(small_disk) in str(failure.value)
    assert [p.name for p in small_disk.iterdir()] == ["ballast"]


def test_a_migration_whose_backup_cannot_be_written_changes_nothing_until_there_is_room(
    small_disk: Path, tmp_path: Path
) -> None:
    db, backups = tmp_path / "ltm.sqlite", small_disk / "backups"
    SqliteStore(db, backups).close()
    note = Migration(
        latest_version() + 1, "a note column", ("ALTER TABLE memories ADD COLUMN note TEXT",)
    )
    backups.mkdir(exist_ok=True)
    ballast = fill(small_disk)

    with pytest.raises(StorageError, match="is full"):
        SqliteStore(db, backups, (*MIGRATIONS, note))

    assert list(backups.iterdir()) == []  # no partial copy posing as a backup
    check = sqlite3.connect(db)
    try:
        assert check.execute("PRAGMA user_version").fetchone()[0] == latest_version()
    finally:
        check.close()
    ballast.unlink()
    SqliteStore(db, backups, (*MIGRATIONS, note)).close()
    assert [p.name.startswith(f"ltm-v{latest_version()}-") for p in backups.iterdir()] == [True]


# -- this process's SQLite locks ---------------------------------------------

PROC_LOCKS = Path("/proc/locks")
needs_proc_locks = pytest.mark.skipif(
    not PROC_LOCKS.exists(), reason="reads the kernel's lock table in /proc/locks (Linux)"
)


def process_locks(path: Path) -> set[str]:
    """This process's POSIX locks on the inode of ``path``, as /proc/locks lists them."""
    info = os.stat(path)
    inode = f"{os.major(info.st_dev):02x}:{os.minor(info.st_dev):02x}:{info.st_ino}"
    mine = f" {os.getpid()} "
    return {
        line.split(":", 1)[1].strip()
        for line in PROC_LOCKS.read_text().splitlines()
        if mine in line and f" {inode} " in line and "POSIX" in line
    }


@needs_proc_locks
@pytest.mark.parametrize("migrating", [False, True], ids=["open", "open-and-migrate"])
def test_opening_a_store_keeps_the_locks_this_process_already_holds(
    tmp_path: Path, migrating: bool
) -> None:
    db = tmp_path / "ltm.sqlite"
    SqliteStore(db, tmp_path / "backups").close()
    raw = sqlite3.connect(db, isolation_level=None)  # e.g. a harness, or the GUI's store
    try:
        raw.execute("BEGIN")
        raw.execute("SELECT count(*) FROM memories").fetchone()  # a read: a shared lock
        held = process_locks(db)
        assert held, "the raw connection holds no lock to lose"
        note = Migration(
            latest_version() + 1, "a note column", ("ALTER TABLE memories ADD COLUMN note TEXT",)
        )
        store = SqliteStore(
            db, tmp_path / "backups", (*MIGRATIONS, note) if migrating else MIGRATIONS
        )
        assert held <= process_locks(db)
        store.close()
        assert held <= process_locks(db)
        raw.execute("COMMIT")
    finally:
        raw.close()


CHILD_WRITES = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=10)
conn.execute("INSERT INTO probe (who) VALUES ('child')")
conn.close()  # if it believes it is the last connection, it deletes the WAL
"""


@needs_proc_locks
def test_reopening_beside_a_raw_connection_while_another_process_writes_loses_nothing(
    tmp_path: Path,
) -> None:
    db = tmp_path / "ltm.sqlite"
    SqliteStore(db, tmp_path / "backups").close()
    setup = sqlite3.connect(db)
    setup.execute("CREATE TABLE probe (who TEXT NOT NULL)")
    setup.commit()
    setup.close()
    raw = sqlite3.connect(db, isolation_level=None)
    rounds = 5
    try:
        for _ in range(rounds):
            raw.execute("SELECT count(*) FROM probe").fetchone()  # raw has the WAL open
            SqliteStore(db, tmp_path / "backups").close()
            subprocess.run([sys.executable, "-c", CHILD_WRITES, str(db)], check=True, timeout=60)
            for _ in range(10):
                raw.execute("INSERT INTO probe (who) VALUES ('raw')")
    finally:
        raw.close()
    check = sqlite3.connect(db)
    try:
        assert check.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        counts = dict(check.execute("SELECT who, count(*) FROM probe GROUP BY who").fetchall())
        assert counts == {"child": rounds, "raw": rounds * 10}
    finally:
        check.close()

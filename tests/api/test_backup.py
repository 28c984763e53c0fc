"""Backup and restore: an online copy during writes is consistent and holds every write
acknowledged before it started; restore refuses while a server runs on the data dir."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import threading
import uuid
from pathlib import Path

import pytest

from ltm_desktop.backups import backup_if_due, backup_launch, last_backup
from ltm_desktop.cli import main
from ltm_desktop.core.errors import DatabaseReplaced
from ltm_desktop.core.records import GLOBAL_PROJECT_ID, ListQuery, MemoryDraft
from ltm_desktop.core.settings.launch import resolve_launch
from ltm_desktop.desktop import start_backup_if_due
from ltm_desktop.launching import open_service
from tests.conftest import ServiceFactory
from tests.console import assert_one_error_line

WRITERS = 8
ALL = ListQuery(include_disabled=True, include_expired=True, limit=10_000)


def ltm_desktop() -> str:
    script = Path(sys.executable).with_name("ltm-desktop")
    assert script.exists(), f"install the package first ({script} is missing)"
    return str(script)


def test_a_backup_during_a_write_burst_holds_every_acknowledged_write(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    service = make_service(tmp_path / "data")
    acknowledged: list[str] = []
    lock = threading.Lock()
    enough, stop = threading.Event(), threading.Event()
    failures: list[BaseException] = []

    def write(writer: int) -> None:
        n = 0
        try:
            while not stop.is_set():
                draft = MemoryDraft(f"{uuid.uuid4().hex} {uuid.uuid4().hex} note {n}", importance=3)
                memory = service.add(GLOBAL_PROJECT_ID, draft, f"writer-{writer}").memory
                with lock:
                    acknowledged.append(memory.id)
                    if len(acknowledged) >= 200:
                        enough.set()
                n += 1
        except BaseException as exc:  # reported by the test, not lost in the thread
            failures.append(exc)
            enough.set()

    threads = [threading.Thread(target=write, args=(i,)) for i in range(WRITERS)]
    for thread in threads:
        thread.start()
    try:
        assert enough.wait(timeout=60)
        with lock:
            before = set(acknowledged)
        made = backup_launch(resolve_launch(tmp_path / "data", tmp_path / "config.toml"))
        with lock:
            during = len(acknowledged)
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    assert failures == []
    assert during > len(before) or len(acknowledged) > len(before)  # writes went on

    assert main(["--data-dir", str(tmp_path / "restored"), "restore", str(made.path)]) == 0
    opened = open_service(tmp_path / "restored", tmp_path / "config.toml")
    try:
        restored = opened.service.list_memories(GLOBAL_PROJECT_ID, ALL)
        ids = {m.id for m in restored}
        assert before <= ids  # every write acknowledged before the backup started
        assert ids <= set(acknowledged)
        assert made.memories == len(ids)
        for memory in restored:  # each memory came with its audit event: whole transactions
            assert [e.action for e in opened.service.history.memory(memory.id)] == ["created"]
        assert opened.service.search.query(GLOBAL_PROJECT_ID, "note", limit=5)
    finally:
        opened.service.close()


def test_backups_into_the_data_dir_keep_the_newest(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    make_service(tmp_path / "data").add(GLOBAL_PROJECT_ID, MemoryDraft("kept", importance=3), "t")
    config = tmp_path / "config.toml"
    config.write_text("[backup]\nkeep = 2\n")
    made = [
        backup_launch(resolve_launch(tmp_path / "data", config), now=1_800_000_000 + d)
        for d in range(3)
    ]
    assert made[2].removed == (made[0].path,)
    assert sorted(p.name for p in (tmp_path / "data" / "backups").iterdir()) == [
        made[1].path.name,
        made[2].path.name,
    ]


def test_restore_checks_the_file_and_keeps_the_current_database_aside(
    make_service: ServiceFactory, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    service = make_service(tmp_path / "data")
    service.add(GLOBAL_PROJECT_ID, MemoryDraft("before the backup", importance=3), "t")
    made = backup_launch(resolve_launch(tmp_path / "data", None), tmp_path / "b.sqlite")
    service.add(GLOBAL_PROJECT_ID, MemoryDraft("after the backup", importance=3), "t")
    service.close()

    bad = tmp_path / "notes.sqlite"
    bad.write_text("not a database")
    data = ["--data-dir", str(tmp_path / "data")]
    assert main([*data, "restore", str(bad)]) == 1
    assert "is not an ltm-desktop database" in capsys.readouterr().err
    assert not (tmp_path / "data" / "backups").exists()  # nothing was touched

    assert main([*data, "restore", str(made.path)]) == 0
    out = capsys.readouterr().out
    assert "restored 1 memories" in out
    aside = Path(out.split("the previous database is kept at ")[1].strip())
    reopened = open_service(tmp_path / "data")
    try:
        contents = [m.content for m in reopened.service.list_memories(GLOBAL_PROJECT_ID)]
        assert contents == ["before the backup"]
    finally:
        reopened.service.close()
    assert main(["--data-dir", str(tmp_path / "aside"), "restore", str(aside)]) == 0
    capsys.readouterr()
    old = open_service(tmp_path / "aside")
    try:
        assert {m.content for m in old.service.list_memories(GLOBAL_PROJECT_ID)} == {
            "before the backup",
            "after the backup",
        }
    finally:
        old.service.close()


def test_restore_refuses_while_a_server_runs(tmp_path: Path, short_dir: Path) -> None:
    data = tmp_path / "data"
    sock = short_dir / "s.sock"
    server = subprocess.Popen(
        [ltm_desktop(), "--data-dir", str(data), "serve", "--socket", str(sock)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        assert "serving" in server.stdout.readline()
        backup = subprocess.run(
            [ltm_desktop(), "--data-dir", str(data), "backup", "-o", str(tmp_path / "b.sqlite")],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert backup.returncode == 0, backup.stderr  # a backup is fine while it runs
        restore = subprocess.run(
            [ltm_desktop(), "--data-dir", str(data), "restore", str(tmp_path / "b.sqlite")],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert restore.returncode == 1
        assert restore.stderr == (
            f"ltm-desktop: error: an ltm-desktop server or the app is running on {data}; "
            "quit it, then restore\n"
        )
        assert not (data / "backups").exists()
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=30) == 0
    finally:
        if server.poll() is None:
            server.kill()
        server.wait()
        server.stdout.close()  # type: ignore[union-attr]
        server.stderr.close()  # type: ignore[union-attr]


def test_the_app_backs_up_at_start_when_the_last_backup_is_old(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    make_service(tmp_path / "data")
    config = tmp_path / "config.toml"
    config.write_text("[backup]\nevery_days = 7\n")
    first = backup_if_due(resolve_launch(tmp_path / "data", config))
    assert first is not None
    assert backup_if_due(resolve_launch(tmp_path / "data", config)) is None
    later = first.path.stat().st_mtime + 7 * 86_400 + 1
    second = backup_if_due(resolve_launch(tmp_path / "data", config), now=later)
    assert second is not None
    assert second.path != first.path
    config.write_text("[backup]\nevery_days = 0\n")
    assert backup_if_due(resolve_launch(tmp_path / "data", config), now=later * 2) is None


def test_the_apps_backup_at_start_runs_beside_writes_and_says_when_it_fails(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    """The window does not wait for it: it runs on its own thread while the app writes,
    and a failure is one warning (the app goes on)."""
    service = make_service(tmp_path / "data")
    project = service.resolve_scope(cwd="/srv/app", register=True)
    config = tmp_path / "config.toml"
    warnings: list[str] = []
    thread = start_backup_if_due(resolve_launch(service.paths.data_dir, config), warnings.extend)
    service.add(project, MemoryDraft("written while the backup runs"), "gui")
    thread.join(timeout=60)
    assert not thread.is_alive()
    assert warnings == []
    assert last_backup(tmp_path / "data") is not None

    backups = service.paths.backup_dir
    shutil.rmtree(backups)
    (tmp_path / "elsewhere").mkdir()
    backups.symlink_to(tmp_path / "elsewhere")  # refused, never followed
    failing = start_backup_if_due(resolve_launch(service.paths.data_dir, config), warnings.extend)
    failing.join(timeout=60)
    assert len(warnings) == 1
    assert warnings[0].startswith("the automatic backup failed: ")
    assert "symbolic link" in warnings[0]
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_a_process_that_kept_the_old_database_open_is_stopped_not_lost(
    make_service: ServiceFactory, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An ``mcp`` that opened the database itself holds no server lock: restore goes ahead,
    and that process's next write is refused (DatabaseReplaced), never written into the
    file restore replaced."""
    holder = make_service(tmp_path / "data")
    holder.add(GLOBAL_PROJECT_ID, MemoryDraft("old", importance=3), "t")
    made = backup_launch(resolve_launch(tmp_path / "data", None), tmp_path / "b.sqlite")
    assert main(["--data-dir", str(tmp_path / "data"), "restore", str(made.path)]) == 0
    capsys.readouterr()
    with pytest.raises(DatabaseReplaced):
        holder.add(GLOBAL_PROJECT_ID, MemoryDraft("lost?", importance=3), "t")


@pytest.mark.parametrize("damage", ["not a database", "cut short"])
def test_a_database_that_cannot_be_read_is_one_clear_line_and_no_copy(
    make_service: ServiceFactory, tmp_path: Path, damage: str
) -> None:
    """SQLite fails inside the copy; the error says what is wrong with the database."""
    service = make_service(tmp_path / "data")
    for n in range(200):
        service.add(GLOBAL_PROJECT_ID, MemoryDraft(f"note {n} " + "x" * 500), "t")
    service.close()
    db = tmp_path / "data" / "ltm.sqlite"
    whole = db.read_bytes()
    db.write_bytes(b"\x13" * len(whole) if damage == "not a database" else whole[: len(whole) // 2])
    damaged = db.read_bytes()
    out = tmp_path / "copy.sqlite"
    result = subprocess.run(
        [ltm_desktop(), "--data-dir", str(tmp_path / "data"), "backup", "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert_one_error_line(result, "cannot back up", str(db), "not an ltm-desktop database")
    assert "(a bug" not in result.stderr
    assert db.read_bytes() == damaged
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data"]

"""MEMORY.md is a view: a file that cannot be written never fails, hides or stales a write."""

from __future__ import annotations

import errno
import os
import shutil
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ltm_desktop.core.memory_md import files as memory_md_files
from ltm_desktop.core.memory_md import sync as memory_md_sync
from ltm_desktop.core.records import GLOBAL_PROJECT_ID, ChangeEvent
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.config import Settings
from tests.api.conftest import wait_until
from tests.conftest import ServiceFactory, make_draft

IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def precis_dir(service: MemoryService, project_id: str) -> Path:
    return service.paths.precis_path(project_id).parent


class Blocker:
    """Ways a MEMORY.md path gets blocked in the wild; ``unblock`` undoes each."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.monkeypatch = monkeypatch
        self.undo: list[Callable[[], None]] = []

    def dir_at_file(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        target = directory / "MEMORY.md"
        target.unlink(missing_ok=True)
        (target / "inside").mkdir(parents=True)
        self.undo.append(lambda: shutil.rmtree(target))

    def file_at_dir(self, directory: Path) -> None:
        shutil.rmtree(directory, ignore_errors=True)
        directory.parent.mkdir(parents=True, exist_ok=True)
        directory.write_text("not a directory")
        self.undo.append(directory.unlink)

    def read_only_dir(self, directory: Path) -> None:
        if IS_ROOT:
            pytest.skip("root writes into read-only directories; covered by the other blockers")
        directory.mkdir(parents=True, exist_ok=True)
        directory.chmod(0o500)
        self.undo.append(lambda: directory.chmod(0o700))

    def disk_full(self, directory: Path) -> None:
        """Every MEMORY.md write fails as on a full disk (the database is elsewhere)."""

        def full(fd: int) -> None:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        self.monkeypatch.setattr(os, "fsync", full)
        self.undo.append(self.monkeypatch.undo)

    def unblock(self) -> None:
        while self.undo:
            self.undo.pop()()


BLOCKERS = ["dir_at_file", "file_at_dir", "read_only_dir", "disk_full"]


@pytest.fixture
def blocker(monkeypatch: pytest.MonkeyPatch) -> Iterator[Blocker]:
    blocked = Blocker(monkeypatch)
    yield blocked
    blocked.unblock()


@pytest.fixture(autouse=True)
def _quick_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memory_md_sync, "FIRST_RETRY_SECONDS", 0.02)


@pytest.mark.parametrize("how", BLOCKERS)
def test_a_blocked_memory_md_never_fails_a_committed_write(
    service: MemoryService, blocker: Blocker, how: str
) -> None:
    project = service.resolve_scope(cwd="/srv/shop", register=True)
    getattr(blocker, how)(precis_dir(service, project))
    events: list[ChangeEvent] = []
    service.events.subscribe(events.append)

    added = service.add(project, make_draft("deploy on Tuesdays"), "agent")
    updated = service.update(added.memory.id, {"content": "NEVER deploy on Tuesdays"}, "agent")
    removed = service.remove(added.memory.id, "agent")
    restored = service.restore(added.memory.id, "agent")

    assert [e.action for e in events] == ["created", "updated", "removed", "restored"]
    assert service.get(added.memory.id) == restored
    assert service.memory_md.flush()  # MEMORY.md is regenerated in the background
    assert updated.content == "NEVER deploy on Tuesdays"
    assert removed.disabled
    [problem] = service.memory_md.problems()
    assert problem.project_id == project
    assert problem.path == str(service.paths.precis_path(project))
    assert problem.reason
    assert problem.attempts >= 1
    history = [e.action for e in service.history.memory(added.memory.id)]
    assert history == ["created", "updated", "removed", "restored"]  # no retry twins


@pytest.mark.parametrize("how", BLOCKERS)
def test_the_file_catches_up_at_the_next_write_once_unblocked(
    service: MemoryService, blocker: Blocker, how: str
) -> None:
    project = service.resolve_scope(cwd="/srv/shop", register=True)
    getattr(blocker, how)(precis_dir(service, project))
    service.add(project, make_draft("deploy on Tuesdays"), "agent")
    assert service.memory_md.flush()
    assert service.memory_md.problems()
    blocker.unblock()
    service.add(project, make_draft("the staging box is called kiwi"), "agent")
    assert service.memory_md.flush()
    assert service.memory_md.problems() == []
    assert service.precis_manager.read_file(project) == service.precis(project).text


def test_a_file_left_stale_by_a_failure_is_rewritten_by_a_write_outside_the_top_n(
    make_service: ServiceFactory, blocker: Blocker
) -> None:
    """Issue #10.3: the next write no longer skips a file that a failure left behind."""
    service = make_service(settings=Settings(precis_top_n=1))
    project = service.resolve_scope(cwd="/srv/shop", register=True)
    rule = service.add(project, make_draft("deploy on Tuesdays", importance=9), "agent").memory
    assert service.memory_md.flush()
    blocker.disk_full(precis_dir(service, project))
    service.update(rule.id, {"content": "NEVER deploy on Tuesdays"}, "gui")
    assert service.memory_md.flush()
    assert service.memory_md.problems()
    assert service.precis_manager.read_file(project).endswith("\n\ndeploy on Tuesdays")  # kept
    blocker.unblock()
    service.add(project, make_draft("a detail that stays out of the top 1", importance=1), "a")
    assert service.memory_md.flush()
    assert service.precis_manager.read_file(project).endswith("NEVER deploy on Tuesdays")


def test_a_failed_file_is_retried_in_the_background_without_another_write(
    service: MemoryService, blocker: Blocker
) -> None:
    project = service.resolve_scope(cwd="/srv/shop", register=True)
    seen: list[int] = []
    service.memory_md.subscribe(lambda problems: seen.append(len(problems)))
    blocker.disk_full(precis_dir(service, project))
    service.add(project, make_draft("deploy on Tuesdays"), "agent")
    wait_until(lambda: bool(service.memory_md.problems()))
    blocker.unblock()  # no write follows: only the periodic retry can bring the file back
    wait_until(lambda: not service.memory_md.problems())
    assert (
        service.precis_manager.read_file(project) == "## deploy on Tuesdays\n\ndeploy on Tuesdays"
    )
    assert seen == [1, 0]  # listeners heard of the problem and of its end


def test_one_broken_project_dir_does_not_fail_global_writes(
    service: MemoryService, blocker: Blocker
) -> None:
    broken = service.resolve_scope(cwd="/srv/broken", register=True)
    fine = service.resolve_scope(cwd="/srv/fine", register=True)
    blocker.file_at_dir(precis_dir(service, broken))
    result = service.add(GLOBAL_PROJECT_ID, make_draft("I prefer tabs"), "agent")
    assert result.memory.project_id == GLOBAL_PROJECT_ID
    assert service.memory_md.flush()
    assert [p.project_id for p in service.memory_md.problems()] == [broken]
    assert service.precis_manager.read_file(fine) == "## I prefer tabs\n\nI prefer tabs"
    assert (
        service.precis_manager.read_file(GLOBAL_PROJECT_ID) == "## I prefer tabs\n\nI prefer tabs"
    )


def test_a_store_opened_with_a_blocked_path_starts_and_reports_it(
    make_service: ServiceFactory, tmp_path: Path, blocker: Blocker
) -> None:
    first = make_service(tmp_path / "data")
    project = first.resolve_scope(cwd="/srv/shop", register=True)
    first.add(project, make_draft("kept"), "agent")
    first.close()
    blocker.dir_at_file(precis_dir(first, project))
    reopened = make_service(tmp_path / "data")
    assert [p.project_id for p in reopened.memory_md.problems()] == [project]
    assert reopened.list_memories(project)[0].content == "kept"


def test_a_burst_of_global_writes_is_fanned_out_once_per_project(
    service: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    projects = [service.resolve_scope(cwd=f"/srv/p{i}", register=True) for i in range(20)]
    written: list[Path] = []
    real = memory_md_files.write_atomically

    def counting(path: Path, text: str) -> None:
        written.append(path)
        real(path, text)

    monkeypatch.setattr(memory_md_sync, "write_atomically", counting)
    gate = threading.Lock()
    with gate:  # hold the worker's first regeneration back while the burst arrives
        render = service.views.regenerate

        def slow(project_id: str, changed: object = None) -> bool:
            if threading.current_thread().name == "ltm-memory-md":
                with gate:
                    pass
            return render(project_id, changed)  # type: ignore[arg-type]

        monkeypatch.setattr(service.views, "regenerate", slow)
        for i in range(10):
            service.add(GLOBAL_PROJECT_ID, make_draft(f"global rule number {i} zz{i}"), "a")
    assert service.memory_md.flush()
    per_project = {p: sum(1 for w in written if w.parent.name == p) for p in projects}
    assert all(count <= 2 for count in per_project.values()), per_project
    for project in projects:
        assert service.precis_manager.read_file(project) == service.precis(project).text


def test_memory_md_is_synced_before_and_after_the_rename(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        calls.append("fsync-dir" if os.path.isdir(f"/proc/self/fd/{fd}") else "fsync-file")
        real_fsync(fd)

    def replace(src: str, dst: Path) -> None:
        calls.append("rename")
        real_replace(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    memory_md_files.write_atomically(tmp_path / "scope" / "MEMORY.md", "text")
    assert calls == ["fsync-file", "rename", "fsync-dir"]
    assert (tmp_path / "scope" / "MEMORY.md").read_text() == "text"

"""Memories that name their files: the paths' rules, storing them, the ``file:`` filter,
and the stale list following files that are created and deleted in a temp project."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from ltm_desktop.core.errors import InvalidInput
from ltm_desktop.core.records import GLOBAL_PROJECT_ID, MemoryDraft, SearchFilter
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.stale.named_files import check_files, split_file_filter
from ltm_desktop.store.migrations import MIGRATIONS, Migration, latest_version
from ltm_desktop.store.sqlite_store import SqliteStore
from tests.conftest import FakeClock, ServiceFactory

pytestmark = pytest.mark.every_backend

ROOT = "/home/dev/src/billing-api"


# -- the rules --------------------------------------------------------------


def test_paths_are_made_relative_and_clean() -> None:
    given = ["src/app.py", "./src//app.py", f"{ROOT}/docs/setup.md", "lib/../README.md", "src"]
    assert check_files(given, ROOT) == ("src/app.py", "docs/setup.md", "README.md", "src")
    assert check_files(None, ROOT) == ()
    assert check_files([], None) == ()


@pytest.mark.parametrize(
    ("files", "root", "message"),
    [
        (["/etc/passwd"], ROOT, "is outside the project (/home/dev/src/billing-api)"),
        ([f"{ROOT}-old/x.py"], ROOT, "is outside the project"),
        (["../shop/x.py"], ROOT, "is outside the project"),
        ([ROOT], ROOT, "is outside the project"),
        (["."], ROOT, "not the project itself"),
        (["/srv/x.py"], None, "this scope has no project directory"),
        (["", "a"], ROOT, "files must be non-empty paths"),
        ([3], ROOT, "files must be non-empty paths; got 3"),
        ("src/app.py", ROOT, "files must be a list of paths"),
        ([f"f{i}" for i in range(51)], ROOT, "at most 50 files"),
    ],
)
def test_bad_paths_are_refused_clearly(files: object, root: str | None, message: str) -> None:
    with pytest.raises(InvalidInput, match=message.replace("(", r"\(").replace(")", r"\)")) as e:
        check_files(files, root)
    assert e.value.field == "files"


def test_file_filter_is_split_from_the_query() -> None:
    assert split_file_filter("file:src/app.py deploy") == ("src/app.py", "deploy")
    assert split_file_filter('why file:"docs/my notes.md"') == ("docs/my notes.md", "why")
    assert split_file_filter("profile:x deploy") == (None, "profile:x deploy")
    assert split_file_filter(None) == (None, None)


# -- through the service ------------------------------------------------------


def test_add_and_update_store_relative_paths(service: MemoryService, tmp_path: Path) -> None:
    project = service.resolve_scope(cwd=str(tmp_path), register=True)
    added = service.add(
        project, MemoryDraft("The app starts in app.py", files=[str(tmp_path / "src/app.py")]), "a"
    ).memory
    assert added.files == ("src/app.py",)
    assert service.get(added.id).files == ("src/app.py",)
    updated = service.update(added.id, {"files": ["src/main.py", str(tmp_path / "x.toml")]}, "a")
    assert service.get(added.id).files == updated.files == ("src/main.py", "x.toml")
    with pytest.raises(InvalidInput, match="is outside the project"):
        service.update(added.id, {"files": ["/etc/hosts"]}, "a")
    assert service.get(added.id).files == ("src/main.py", "x.toml")  # nothing lost
    [created, changed] = service.history.memory(added.id)[:2]
    assert created.after is not None
    assert created.after["files"] == ["src/app.py"]
    assert changed.after == {"files": ["src/main.py", "x.toml"]}


def test_global_memories_take_relative_paths_only(service: MemoryService) -> None:
    kept = service.add(GLOBAL_PROJECT_ID, MemoryDraft("dotfiles", files=["~/.bashrc"]), "a")
    assert kept.memory.files == ("~/.bashrc",)
    with pytest.raises(InvalidInput, match="no project directory"):
        service.add(GLOBAL_PROJECT_ID, MemoryDraft("etc", files=["/etc/hosts"]), "a")


def test_remember_is_the_http_routes_call(service: MemoryService, tmp_path: Path) -> None:
    result = service.remember(
        str(tmp_path),
        "Payments retry three times",
        category="knowledge",
        tags=["Payments", "retry"],
        files=[str(tmp_path / "pay.py"), "docs/pay.md"],
        actor="http",
    )
    memory = result.memory
    assert (memory.tags, memory.files, memory.source) == (
        ("payments", "retry"),
        ("pay.py", "docs/pay.md"),
        "http",
    )
    assert service.resolve_cwd(str(tmp_path)).path == str(tmp_path)  # registered
    with pytest.raises(InvalidInput, match="outside the project"):
        service.remember(str(tmp_path), "x", files=["/etc/hosts"])
    todo = service.remember(str(tmp_path), "Rotate the keys", category="todo")
    assert todo.memory.category.value == "task"
    with pytest.raises(InvalidInput, match="category"):
        service.remember(str(tmp_path), "y", category="rumour")


def test_search_by_file(service: MemoryService, tmp_path: Path) -> None:
    project = service.resolve_scope(cwd=str(tmp_path), register=True)
    app = service.add(project, MemoryDraft("Routing lives in app.py", files=["src/app.py"]), "a")
    both = service.add(
        project, MemoryDraft("Deploy reads settings", files=["src/app.py", "cfg.toml"]), "a"
    )
    service.add(project, MemoryDraft("Deploy with make deploy"), "a")
    ids = [h.memory.id for h in service.search.query(project, "file:src/app.py", limit=10)]
    assert sorted(ids) == sorted([app.memory.id, both.memory.id])
    ids = [h.memory.id for h in service.search.query(project, "deploy file:./src/app.py", limit=10)]
    assert ids == [both.memory.id]
    assert service.search.query(project, "file:nothere.py", limit=10) == []
    service.remove(app.memory.id, "a")
    assert [h.memory.id for h in service.search.query(project, "file:src/app.py")] == [
        both.memory.id
    ]


def test_search_by_file_keeps_to_the_list_filters(service: MemoryService, tmp_path: Path) -> None:
    project = service.resolve_scope(cwd=str(tmp_path), register=True)
    service.add(project, MemoryDraft("Routing lives in app.py", files=["src/app.py"]), "a")
    skill = service.add(
        project,
        MemoryDraft("Restart the app with make run", files=["src/app.py"], category="skill"),
        "a",
    )
    hits = service.search.query(project, "file:src/app.py", where=SearchFilter(category="skill"))
    assert [h.memory.id for h in hits] == [skill.memory.id]


# -- staleness follows the files ---------------------------------------------


def test_stale_list_follows_files_created_and_deleted(
    make_service: ServiceFactory, clock: FakeClock, tmp_path: Path
) -> None:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print()")
    (root / "README.md").write_text("hi")
    service = make_service(tmp_path / "data")
    project = service.resolve_scope(cwd=str(root), register=True)
    named = service.add(
        project,
        MemoryDraft("Routing is in app.py", importance=9, files=["src/app.py", "README.md"]),
        "a",
    ).memory
    service.add(project, MemoryDraft("Deploy with make deploy", importance=9), "a")
    assert service.stale.candidates(project) == []

    (root / "src" / "app.py").unlink()
    clock.advance(30)
    assert service.stale.candidates(project) == []  # checked less than a minute ago
    clock.advance(31)
    [candidate] = service.stale.candidates(project)
    assert candidate.memory.id == named.id
    assert (candidate.missing_files, candidate.aged) == (("src/app.py",), False)
    assert candidate.reasons == ("a file it names no longer exists: src/app.py",)
    assert [m.id for m in service.stale.memories(project)] == [named.id]

    (root / "src" / "app.py").write_text("print()")  # back again
    clock.advance(61)
    assert service.stale.candidates(project) == []

    (root / "README.md").unlink()
    clock.advance(61)
    assert service.stale.candidates(project)[0].missing_files == ("README.md",)
    service.update(named.id, {"files": ["src/app.py"]}, "gui")  # the person fixed it
    assert service.stale.candidates(project) == []  # even before the next check


def test_files_are_checked_at_most_once_a_minute(
    service: MemoryService, clock: FakeClock, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = service.resolve_scope(cwd=str(tmp_path), register=True)
    service.add(project, MemoryDraft("x", files=["a.py", "b.py"]), "a")
    checked: list[str] = []

    def exists(path: str) -> bool:
        checked.append(path)
        return True

    monkeypatch.setattr(service.stale._missing_files, "_exists", exists)
    for _ in range(5):
        service.stale.candidates(project)
        clock.advance(10)
    assert checked == [str(tmp_path / "a.py"), str(tmp_path / "b.py")]
    clock.advance(30)
    service.stale.candidates(project)
    assert len(checked) == 4


def test_aged_and_missing_both_give_their_reasons(
    service: MemoryService, clock: FakeClock, tmp_path: Path
) -> None:
    project = service.resolve_scope(cwd=str(tmp_path), register=True)
    old = service.add(project, MemoryDraft("old note", files=["gone.py"]), "a").memory
    clock.advance(days=service.settings.stale_age_days + 1)
    [candidate] = service.stale.candidates(project)
    assert candidate.memory.id == old.id
    assert candidate.reasons == (
        "a file it names no longer exists: gone.py",
        "old, unimportant and never used",
    )


# -- the schema ---------------------------------------------------------------


@pytest.mark.sqlite_only
def test_files_survive_a_reopen_and_export_round_trip(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    from ltm_desktop.core.transfer.jsonl_format import memory_from_record, memory_record

    service = make_service(tmp_path / "data")
    project = service.resolve_scope(cwd=str(tmp_path), register=True)
    memory = service.add(project, MemoryDraft("x", files=["a.py"]), "a").memory
    service.close()
    again = make_service(tmp_path / "data")
    assert again.get(memory.id).files == ("a.py",)
    record = memory_record(again.get(memory.id))
    assert record["files"] == ["a.py"]
    assert memory_from_record(record).files == ("a.py",)
    assert "files" not in memory_record(again.add(project, MemoryDraft("y"), "a").memory)


@pytest.mark.sqlite_only
def test_migrations_tolerate_a_gap_and_a_later_lower_version(tmp_path: Path) -> None:
    """Versions can land out of order (5 and 6 came from parallel changes): a database that
    has a higher version gets a lower one when it arrives, and ``user_version`` stays the
    highest applied. Built on whatever MIGRATIONS holds today, plus two past its end."""
    newest = latest_version()
    low = Migration(newest + 1, "the lower one, added later", ("CREATE TABLE t_low (x)",))
    high = Migration(newest + 2, "the higher one, first", ("CREATE TABLE t_high (x)",))
    db, backups = tmp_path / "ltm.sqlite", tmp_path / "backups"
    SqliteStore(db, backups, (*MIGRATIONS, high)).close()  # a gap at newest + 1
    store = SqliteStore(db, backups, (*MIGRATIONS, low, high))
    assert store.schema_version == newest + 2
    store.close()
    with sqlite3.connect(db) as conn:
        applied = [row[0] for row in conn.execute("SELECT version FROM schema_migrations")]
        assert sorted(applied) == [*(m.version for m in MIGRATIONS), newest + 1, newest + 2]
        assert conn.execute("SELECT count(*) FROM t_low").fetchone() == (0,)
    # from an older database, both run in version order
    old = tmp_path / "old.sqlite"
    SqliteStore(old, backups, MIGRATIONS).close()
    SqliteStore(old, backups, (*MIGRATIONS, high, low)).close()
    with sqlite3.connect(old) as conn:
        applied = [row[0] for row in conn.execute("SELECT version FROM schema_migrations")]
        assert applied == [*(m.version for m in MIGRATIONS), newest + 1, newest + 2]


def test_keeping_a_candidate_takes_it_off_until_it_changes(
    service: MemoryService, clock: FakeClock, tmp_path: Path
) -> None:
    project = service.resolve_scope(cwd=str(tmp_path), register=True)
    (tmp_path / "a.py").write_text("")
    kept = service.add(project, MemoryDraft("x", importance=9, files=["a.py", "b.py"]), "a").memory
    service.reviews.mark(kept.id, "gui")  # reviewed before any file went missing
    clock.advance(61)
    assert [c.memory.id for c in service.stale.candidates(project)] == [kept.id]  # b.py
    service.reviews.mark(kept.id, "gui")  # the person keeps it: b.py is fine to miss
    assert service.stale.candidates(project) == []
    clock.advance(61)
    assert service.stale.candidates(project) == []  # the same file missing: still kept
    (tmp_path / "a.py").unlink()
    clock.advance(61)
    [candidate] = service.stale.candidates(project)  # another file went: asked again
    assert candidate.missing_files == ("a.py", "b.py")
    service.reviews.mark(kept.id, "gui")
    assert service.stale.candidates(project) == []
    service.update(kept.id, {"content": "x, edited"}, "gui")  # changed since: ask again
    assert [c.memory.id for c in service.stale.candidates(project)] == [kept.id]


def test_approving_from_the_inbox_refuses_files(service: MemoryService) -> None:
    with pytest.raises(InvalidInput, match="files cannot be set while approving") as caught:
        service.inbox.approve("prop_1", "gui", changes={"files": ["a.py"]})
    assert caught.value.field == "files"

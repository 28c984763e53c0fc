"""Projects by remote on every engine: clones are one project, paths are recorded per
machine, adopting a remote merges the path project, and merge and detach by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from ltm_desktop.core.actors import ENV_MACHINE
from ltm_desktop.core.errors import InvalidInput, NotFound
from ltm_desktop.core.projects.identity import remote_project_id
from ltm_desktop.core.records import GLOBAL_PROJECT_ID, AuditAction, ListQuery
from ltm_desktop.core.rules import project_id_for_cwd
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.config import Settings
from tests.conftest import FakeClock, ServiceFactory, make_draft
from tests.unit.projects.gitrepos import clone_of

pytestmark = pytest.mark.every_backend

URL = "git@github.com:acme/shop.git"
SHOP = remote_project_id("github.com/acme/shop")
REMOTE = Settings(projects_identity="remote")
PATH = Settings(projects_identity="path")


@pytest.fixture(autouse=True)
def _machine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_MACHINE, "laptop")


def _contents(service: MemoryService, project_id: str, **query: object) -> list[str]:
    listed = service.store.list_memories(project_id, ListQuery(**query), service.now())  # type: ignore[arg-type]
    return sorted(m.content for m in listed)


def test_two_clones_of_one_remote_are_one_project(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    service = make_service(settings=REMOTE)
    a = clone_of(tmp_path / "work" / "shop", URL)
    b = clone_of(tmp_path / "code" / "shop-checkout", "https://github.com/acme/shop")
    (b / "src").mkdir()
    assert service.resolve_scope(cwd=str(a), register=True) == SHOP  # after a write
    assert service.resolve_scope(cwd=str(b / "src"), register=True) == SHOP
    project = service.store.get_project(SHOP)
    assert project.name == "shop"
    paths = service.scopes.paths(SHOP)
    assert [(p.machine, p.path) for p in paths] == sorted([("laptop", str(a)), ("laptop", str(b))])
    assert service.resolve_cwd(str(b)).path == str(b)  # this directory's, not the first's


def test_without_a_remote_a_directory_keeps_its_path_id(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    service = make_service(settings=REMOTE)
    plain = tmp_path / "plain"
    plain.mkdir()
    local = clone_of(tmp_path / "local", None)
    assert service.resolve_scope(cwd=str(plain)) == project_id_for_cwd(str(plain))
    assert service.resolve_scope(cwd=str(local)) == project_id_for_cwd(str(local))


def test_the_default_identity_is_remote_on_postgresql_only(
    make_service: ServiceFactory, backend: str, tmp_path: Path
) -> None:
    service = make_service()
    clone = clone_of(tmp_path / "shop", URL)
    expected = SHOP if backend == "postgres" else project_id_for_cwd(str(clone))
    assert service.resolve_scope(cwd=str(clone)) == expected
    forced = make_service(tmp_path / "other", settings=PATH)
    assert forced.resolve_scope(cwd=str(clone)) == project_id_for_cwd(str(clone))


def test_a_path_seen_again_writes_nothing(
    make_service: ServiceFactory, clock: FakeClock, tmp_path: Path
) -> None:
    service = make_service(settings=REMOTE)
    clone = clone_of(tmp_path / "shop", URL)
    service.resolve_scope(cwd=str(clone), register=True)
    [first] = service.scopes.paths(SHOP)
    clock.advance(3600)
    for _ in range(3):
        service.resolve_scope(cwd=str(clone), register=True)
    assert service.scopes.paths(SHOP) == [first]  # not even last_seen: one read per turn
    clock.advance(days=2)
    service.resolve_scope(cwd=str(clone))
    [again] = service.scopes.paths(SHOP)
    assert again.first_seen == first.first_seen
    assert again.last_seen > first.last_seen + 86_400


def test_adopting_a_remote_merges_the_path_project(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    clone = clone_of(tmp_path / "shop", URL)
    data = tmp_path / "data"
    before = make_service(data, settings=PATH)
    old = before.resolve_scope(cwd=str(clone), register=True)
    before.add(old, make_draft("Deploys go out on Fridays"), "agent")
    before.add(old, make_draft("Use uv for the virtualenv"), "agent")
    before.observations.record(
        old, "agent_end", "s1", "agent", user_text="ship it", assistant_text="shipped"
    )
    before.close()

    after = make_service(data, settings=REMOTE)
    assert after.resolve_scope(cwd=str(clone)) == SHOP
    assert _contents(after, SHOP) == ["Deploys go out on Fridays", "Use uv for the virtualenv"]
    assert _contents(after, old) == []
    trashed = after.store.list_memories(old, ListQuery(only_disabled=True), after.now())
    assert len(trashed) == 2
    assert all(m.superseded_by for m in trashed)
    actions = {e.action for m in trashed for e in after.history.memory(m.id)}
    assert AuditAction.MOVED in actions
    assert len(after.observations.page(SHOP)) == 1
    assert after.observations.page(old) == []
    assert after.integrity.verify().problems == ()
    after.views.close()  # the queued MEMORY.md writes
    precis = after.paths.precis_path(SHOP).read_text(encoding="utf-8")
    assert "Deploys go out on Fridays" in precis
    # once: the path is recorded, the next resolve merges nothing more
    assert after.resolve_scope(cwd=str(clone)) == SHOP
    assert [p.path for p in after.scopes.paths(SHOP)] == [str(clone)]


def test_a_merge_keeps_both_of_two_identical_memories_in_its_history(
    service: MemoryService, tmp_path: Path
) -> None:
    a = service.resolve_scope(cwd=str(tmp_path / "a"), register=True)
    b = service.resolve_scope(cwd=str(tmp_path / "b"), register=True)
    twin_a = service.add(a, make_draft("Deploys go out on Fridays"), "agent").memory
    twin_b = service.add(b, make_draft("Deploys go out on Fridays"), "agent").memory
    service.add(a, make_draft("Only in a"), "agent")
    merged = service.scopes.merge(a, b, "gui")
    assert (merged.memories, merged.outcomes) == (2, {"deduplicated": 1, "created": 1})
    assert _contents(service, b) == ["Deploys go out on Fridays", "Only in a"]
    moved = service.store.get_memory(twin_a.id)
    assert moved.disabled
    assert moved.superseded_by == twin_b.id
    assert service.integrity.verify().problems == ()


def test_merge_refuses_what_it_cannot_do(service: MemoryService, tmp_path: Path) -> None:
    a = service.resolve_scope(cwd=str(tmp_path / "a"), register=True)
    with pytest.raises(InvalidInput):
        service.scopes.merge(a, a, "gui")
    with pytest.raises(InvalidInput):
        service.scopes.merge(a, GLOBAL_PROJECT_ID, "gui")
    with pytest.raises(InvalidInput):
        service.scopes.merge("nonsense", a, "gui")
    with pytest.raises(NotFound):
        service.scopes.merge(a, "repo_0123456789abcdef", "gui")


def test_a_detached_path_is_its_own_project_again(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    service = make_service(settings=REMOTE)
    clone = clone_of(tmp_path / "shop", URL)
    service.add(service.resolve_scope(cwd=str(clone)), make_draft("Shared"), "agent")
    detached = service.scopes.detach(str(clone / "."))
    assert detached.project_id == project_id_for_cwd(str(clone))
    assert service.resolve_scope(cwd=str(clone)) == detached.project_id
    assert _contents(service, SHOP) == ["Shared"]  # its memories stay with the repository
    # and merging it back re-attaches the path
    service.scopes.merge(detached.project_id, SHOP, "gui")
    assert service.resolve_scope(cwd=str(clone)) == SHOP


def test_a_read_from_an_unknown_clone_writes_nothing(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    service = make_service(settings=REMOTE)
    clone = clone_of(tmp_path / "shop", URL)
    assert service.search.query(service.resolve_scope(cwd=str(clone)), "anything") == []
    with pytest.raises(NotFound):
        service.store.get_project(SHOP)
    assert service.scopes.paths(SHOP) == []


def test_the_projects_list_shows_each_machines_own_path(
    make_service: ServiceFactory, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """One database, two machines: a repository's project lists the path it has on the
    machine asking, and none where it was never opened (the other's would not open)."""
    laptop = make_service(tmp_path / "shared", settings=REMOTE)
    work = clone_of(tmp_path / "laptop" / "shop", URL)
    laptop.resolve_scope(cwd=str(work), register=True)
    plain = tmp_path / "notes"
    plain.mkdir()
    notes = laptop.resolve_scope(cwd=str(plain), register=True)

    monkeypatch.setenv(ENV_MACHINE, "desktop")
    desktop = make_service(tmp_path / "shared", settings=REMOTE)
    listed = {p.project_id: p.path for p, _ in desktop.projects()}
    assert listed[SHOP] is None  # not opened on the desktop yet
    assert listed[notes] == str(plain)  # a path project is its path
    checkout = clone_of(tmp_path / "desktop" / "shop-checkout", URL)
    desktop.resolve_scope(cwd=str(checkout), register=True)
    assert {p.project_id: p.path for p, _ in desktop.projects()}[SHOP] == str(checkout)
    assert {p.project_id: p.path for p, _ in laptop.projects()}[SHOP] == str(work)

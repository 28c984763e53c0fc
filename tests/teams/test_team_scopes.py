"""Per-person global scopes and the team's (issue #34, docs/teams.md): on one store, one
person's global memories reach only their own searches and MEMORY.md files; the team's
reach everyone's; with the global scope shared (SQLite's default) nothing changed."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from ltm_desktop.core.errors import InvalidInput
from ltm_desktop.core.projects.ambient import (
    AmbientScopes,
    global_mode,
    personal_scope_id,
)
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.config import Settings
from tests.conftest import DataDirDatabases, FakeClock, make_draft
from tests.teams.people import Open, open_people, person

pytestmark = pytest.mark.every_backend

SHOP = "/home/dev/src/shop"


@pytest.fixture
def open_as(
    backend: str, tmp_path: Path, clock: FakeClock, data_dir_databases: DataDirDatabases
) -> Iterator[Open]:
    yield from open_people(backend, tmp_path, clock, data_dir_databases)


def _found(service: MemoryService, project_id: str, text: str) -> list[str]:
    return [hit.memory.content for hit in service.search.query(project_id, text, limit=20)]


def _memory_md(service: MemoryService, project_id: str) -> str:
    assert service.views.flush()
    path = service.paths.precis_path(project_id)
    return path.read_text(encoding="utf-8") if path.exists() else ""


def test_the_setting_follows_the_engine_unless_set() -> None:
    assert global_mode("", on_server=True) == "personal"
    assert global_mode("", on_server=False) == "shared"
    assert global_mode("shared", on_server=True) == "shared"
    assert global_mode("personal", on_server=False) == "personal"


def test_a_persons_scope_id_is_their_name_on_every_machine() -> None:
    assert re.fullmatch(r"person_[0-9a-f]{16}", personal_scope_id("alice"))
    assert personal_scope_id("Alice ") == personal_scope_id("alice")
    assert personal_scope_id("alice") != personal_scope_id("bob")
    shared = AmbientScopes.shared()
    assert shared.ids == ("global",)
    assert (shared.alias("global"), shared.alias("team")) == ("global", "global")


def test_shared_global_is_as_before(open_as: Open) -> None:
    """``global = "shared"``: one global scope everyone reads, "team" the same one."""
    alice = open_as("alice", Settings(people_global="shared"))
    project = alice.resolve_scope(cwd=SHOP, register=True)
    assert alice.resolve_scope(project_id="global") == "global"
    assert alice.resolve_scope(project_id="team") == "global"
    alice.add("global", make_draft("Alice prefers tabs over spaces"), "agent")
    bob = open_as("bob", Settings(people_global="shared"))  # its files are written at start
    assert _found(bob, project, "tabs") == ["Alice prefers tabs over spaces"]
    assert "Alice prefers tabs" in _memory_md(bob, project)
    assert [p.project_id for p, _ in bob.projects() if p.project_id.startswith("person_")] == []


def test_a_persons_global_reaches_only_them_and_the_teams_everyone(open_as: Open) -> None:
    alice = open_as("alice")
    mine = alice.resolve_scope(project_id="global")
    team = alice.resolve_scope(project_id="team")
    assert mine.startswith("person_")
    assert team == "global"
    project = alice.resolve_scope(cwd=SHOP, register=True)
    alice.add(mine, make_draft("Alice prefers tabs and terse commit messages"), "agent")
    alice.add(team, make_draft("The team reviews every migration in pairs"), "agent")
    alice.add(project, make_draft("Shop deploys with tabs-free YAML"), "agent")

    bob = open_as("bob")  # another machine: its MEMORY.md files are written at start
    assert bob.resolve_scope(project_id="global") not in (mine, "global")
    # searches: Alice's global is hers, the team's and the project's are everyone's
    assert "Alice prefers tabs and terse commit messages" in _found(alice, project, "tabs")
    assert _found(bob, project, "tabs") == ["Shop deploys with tabs-free YAML"]
    assert _found(bob, project, "migration") == ["The team reviews every migration in pairs"]
    assert _found(bob, "global", "tabs") == []  # Bob's own global: Alice's is not in it
    assert _found(alice, project, "migration") == ["The team reviews every migration in pairs"]
    # MEMORY.md: the project's and the global file hold the person's global and the team's
    for scope in (project, "global"):
        assert "Alice prefers tabs" in _memory_md(alice, scope)
        assert "reviews every migration" in _memory_md(alice, scope)
        assert "Alice prefers tabs" not in _memory_md(bob, scope)
        assert "reviews every migration" in _memory_md(bob, scope)
    assert not bob.paths.precis_path(mine).exists()  # no file for another person's scope
    assert "Alice prefers tabs" not in bob.prompt_section(project)
    # the row is made on first use, named for its person; the app lists it for everyone
    names = {p.project_id: p.name for p, _ in bob.projects()}
    assert names[mine] == "Global (alice@laptop)"
    assert bob.ambient.label("global", names["global"]) == "Team"
    assert alice.ambient.label(mine, names[mine]) == "Global (you)"


def test_bobs_later_global_write_reaches_his_files_not_alices(open_as: Open) -> None:
    alice = open_as("alice")
    bob = open_as("bob")
    project = bob.resolve_scope(cwd=SHOP, register=True)
    bob.add(project, make_draft("Shop uses Stripe"), "agent")
    bob.add(bob.resolve_scope(project_id="global"), make_draft("Bob likes emoji"), "agent")
    assert "Bob likes emoji" in _memory_md(bob, project)  # the fan-out to every project
    assert "Bob likes emoji" in _memory_md(bob, "global")
    alice.views.regenerate(project)
    alice.views.regenerate(bob.ambient.personal)  # another's: nothing is written
    assert "Bob likes emoji" not in _memory_md(alice, project)
    assert not alice.paths.precis_path(bob.ambient.personal).exists()


def test_the_same_name_on_two_machines_is_one_global(open_as: Open) -> None:
    """``[people] name`` set alike on a person's machines: one global scope, though the
    audit history names each machine (``alice@laptop``, ``alice@desktop``)."""
    named = Settings(people_global="personal", people_name="alice")
    laptop = open_as("laptop", named, person("alice", "laptop"))
    desktop = open_as("desktop", named, person("alice", "desktop"))
    assert laptop.ambient.personal == desktop.ambient.personal == personal_scope_id("alice")
    laptop.add("global", make_draft("unused"), "agent")  # "global" stored: the team's
    laptop.add(laptop.ambient.personal, make_draft("Alice reads diffs side by side"), "agent")
    project = desktop.resolve_scope(cwd=SHOP, register=True)
    assert _found(desktop, project, "diffs") == ["Alice reads diffs side by side"]
    names = {p.project_id: p.name for p, _ in desktop.projects()}
    assert names[laptop.ambient.personal] == "Global (alice)"


def test_a_persons_global_cannot_be_merged(open_as: Open) -> None:
    alice = open_as("alice")
    mine = alice.resolve_scope(project_id="global")
    alice.add(mine, make_draft("Alice prefers tabs"), "agent")
    project = alice.resolve_scope(cwd=SHOP, register=True)
    alice.add(project, make_draft("Shop uses Stripe"), "agent")
    with pytest.raises(InvalidInput, match="cannot be merged"):
        alice.scopes.merge(mine, project, "gui")

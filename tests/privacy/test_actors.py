"""Actors across machines: every audit event names its agent, its person (user@host) and
its machine (``core.actors``), on every engine; the history filters by person; the
machine's id is made once per data dir and kept."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from ltm_desktop.core.actors import Identity, Machine, WhoAmI, load_machine, resolve_identity
from ltm_desktop.core.records import GLOBAL_PROJECT_ID, AuditAction, MemoryDraft
from ltm_desktop.core.service import MemoryService
from tests.conftest import ServiceFactory

pytestmark = pytest.mark.every_backend

ANA = Identity("ana@laptop", Machine("a1b2c3", "laptop"))
BEN = Identity("ben@desktop", Machine("d4e5f6", "desktop"))


def _as(make_service: ServiceFactory, who: Identity, data_dir: Path) -> MemoryService:
    return make_service(data_dir, identity=WhoAmI.fixed(who))


def test_every_event_names_the_agent_the_person_and_the_machine(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    service = _as(make_service, ANA, tmp_path / "data")
    memory = service.add(GLOBAL_PROJECT_ID, MemoryDraft("Deploys go out on Fridays"), "codex")
    service.update(memory.memory.id, {"content": "Deploys go out on Thursdays"}, "gui")
    service.remove(memory.memory.id, "claude-code")
    events = service.history.memory(memory.memory.id)
    assert [(e.action, e.actor) for e in events] == [
        (AuditAction.CREATED, "codex"),
        (AuditAction.UPDATED, "gui"),
        (AuditAction.REMOVED, "claude-code"),
    ]
    assert {(e.person, e.machine, e.machine_id) for e in events} == {
        ("ana@laptop", "laptop", "a1b2c3")
    }
    assert service.integrity.verify().problems == ()


def test_two_people_share_a_store_and_the_history_filters_by_person(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    ana = _as(make_service, ANA, data)
    ben = _as(make_service, BEN, data)
    for text in ("Deploys go out on Fridays", "Use tabs in Makefiles", "Staging is vm-12"):
        ana.add(GLOBAL_PROJECT_ID, MemoryDraft(text), "codex")
    ben.add(GLOBAL_PROJECT_ID, MemoryDraft("Ben prefers small pull requests"), "claude-code")
    history = ana.history
    assert history.people(GLOBAL_PROJECT_ID) == ["ana@laptop", "ben@desktop"]
    only_ben = history.project(GLOBAL_PROJECT_ID, person="ben@desktop")
    assert [(e.actor, e.machine) for e in only_ben] == [("claude-code", "desktop")]
    assert history.count_project(GLOBAL_PROJECT_ID, person="ana@laptop") == 3
    assert history.count_project(GLOBAL_PROJECT_ID, actor="codex", person="ben@desktop") == 0
    assert ana.integrity.verify().problems == ()


def test_an_erased_memory_keeps_who_erased_it_and_still_verifies(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    service = _as(make_service, ANA, tmp_path / "data")
    added = service.add(GLOBAL_PROJECT_ID, MemoryDraft("The staging password rotates"), "codex")
    service.remove(added.memory.id, "gui")
    service.eraser.erase(added.memory.id, "gui")
    events = service.history.memory(added.memory.id)
    assert events
    assert all(e.person == "ana@laptop" for e in events)
    assert service.integrity.verify().problems == ()


def test_a_service_without_an_identity_records_none(service: MemoryService) -> None:
    """A bare service (a test's) writes events as before people were recorded."""
    service.add(GLOBAL_PROJECT_ID, MemoryDraft("Nobody in particular wrote this"), "agent")
    (event,) = service.history.project(GLOBAL_PROJECT_ID)
    assert (event.person, event.machine, event.machine_id) == (None, None, None)
    assert service.history.people(GLOBAL_PROJECT_ID) == []
    assert service.integrity.verify().problems == ()


@pytest.mark.sqlite_only
def test_the_machine_is_made_once_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "machine.json"
    made: list[Machine] = []
    threads = [threading.Thread(target=lambda: made.append(load_machine(path))) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({m.id for m in made}) == 1  # processes starting at once agree
    assert load_machine(path) == made[0]
    assert path.stat().st_mode & 0o077 == 0
    assert [p.name for p in tmp_path.iterdir()] == ["machine.json"]  # no temporary left
    path.write_text(json.dumps({"id": made[0].id, "name": "the laptop"}), encoding="utf-8")
    assert load_machine(path) == Machine(made[0].id, "the laptop")  # a person renamed it


@pytest.mark.sqlite_only
def test_a_damaged_machine_file_is_made_again(tmp_path: Path) -> None:
    path = tmp_path / "machine.json"
    path.write_text("{not json", encoding="utf-8")
    first = load_machine(path)
    assert load_machine(path) == first


@pytest.mark.sqlite_only
def test_the_person_is_the_configured_name_else_the_login_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOGNAME", "dev")
    monkeypatch.setenv("USER", "dev")
    path = tmp_path / "machine.json"
    machine = load_machine(path)
    assert resolve_identity("", path) == Identity(f"dev@{machine.name}", machine)
    assert resolve_identity("Ana Lima", path).person == f"Ana Lima@{machine.name}"
    assert resolve_identity("ana@example.com", path).person == "ana@example.com"
    assert resolve_identity("ana\x1b[31m\n", path).person == f"ana[31m@{machine.name}"


@pytest.mark.sqlite_only
def test_a_process_that_only_reads_never_makes_the_machine_file(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    who = WhoAmI.of("", data / "machine.json")
    service = make_service(data, identity=who)
    service.search.query(GLOBAL_PROJECT_ID, "anything")
    service.list_memories(GLOBAL_PROJECT_ID)
    assert not (data / "machine.json").exists()
    service.add(GLOBAL_PROJECT_ID, MemoryDraft("Now it writes"), "agent")
    assert (data / "machine.json").exists()


def test_an_export_with_history_names_the_person_and_machine(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    from ltm_desktop import __version__
    from ltm_desktop.core.transfer import exporting

    service = _as(make_service, ANA, tmp_path / "data")
    service.add(GLOBAL_PROJECT_ID, MemoryDraft("Use uv, not pip"), "codex")
    path = tmp_path / "x.jsonl"
    with path.open("w", encoding="utf-8") as out:
        scopes = [p for p, _ in service.projects()]
        exporting.write_jsonl(service, scopes, out, app_version=__version__, with_history=True)
    memory = next(
        record
        for record in map(json.loads, path.read_text(encoding="utf-8").splitlines())
        if record.get("type") == "memory"
    )
    [event] = memory["history"]
    assert (event["actor"], event["person"], event["machine"], event["machine_id"]) == (
        "codex",
        "ana@laptop",
        "laptop",
        "a1b2c3",
    )


@pytest.mark.sqlite_only
def test_a_long_lived_process_makes_the_machine_file_at_start(tmp_path: Path) -> None:
    """The app and ``serve`` make machine.json as they start, so that an agent's hook never
    pays for making it on its first write; a one-shot command makes it on its first write."""
    from ltm_desktop.launching import open_service

    briefly = open_service(tmp_path / "once")
    briefly.service.close()
    assert not (tmp_path / "once" / "machine.json").exists()
    opened = open_service(tmp_path / "app", background=True)
    try:
        machine = load_machine(tmp_path / "app" / "machine.json")
        assert opened.service.kernel.identity is not None
        assert opened.service.kernel.identity.identity.machine == machine
    finally:
        opened.service.close()

"""Replaying queued writes through the service on every engine: the minted id kept, a
replay twice changing nothing, the base version's compare-and-swap, and a conflict that
goes to the Inbox (or is kept aside), never applied over the other edit nor lost."""

from __future__ import annotations

from pathlib import Path

import pytest

from ltm_desktop.core import writing
from ltm_desktop.core.offline import QueuedKind, QueuedWrite
from ltm_desktop.core.service import MemoryService
from ltm_desktop.outbox.replay import Outcome, replay
from tests.conftest import make_draft

pytestmark = pytest.mark.every_backend


def _queued(
    kind: QueuedKind,
    memory_id: str,
    project: str,
    fields: dict[str, object] | None = None,
    base: float | None = None,
) -> QueuedWrite:
    return QueuedWrite(7, kind, memory_id, project, "laptop-agent", 1_700_000_000.0,
                       dict(fields or {}), None, base)  # fmt: skip


def test_an_add_keeps_its_minted_id_and_a_second_replay_adds_nothing(
    service: MemoryService, project: str
) -> None:
    minted = writing.new_memory_id(service.now())
    write = _queued(QueuedKind.ADD, minted, project, {"content": "Offline: use pnpm, not npm"})
    assert replay(service, write).outcome is Outcome.APPLIED
    assert replay(service, write).outcome is Outcome.ALREADY
    stored = service.get(minted)
    assert stored.content == "Offline: use pnpm, not npm"
    assert stored.source == "laptop-agent"
    assert service.count_memories(project) == 1


def test_an_edit_on_the_version_seen_applies_and_twice_is_recognised(
    service: MemoryService, project: str
) -> None:
    memory = service.add(project, make_draft("Deploys go out on Tuesdays"), "agent").memory
    write = _queued(
        QueuedKind.UPDATE, memory.id, project, {"content": "Deploys go out on Thursdays"},
        base=memory.updated_at,
    )  # fmt: skip
    assert replay(service, write).outcome is Outcome.APPLIED
    assert replay(service, write).outcome is Outcome.ALREADY  # a crash before removal
    assert service.get(memory.id).content == "Deploys go out on Thursdays"


def test_an_edit_of_a_memory_changed_meanwhile_is_an_inbox_proposal(
    service: MemoryService, project: str
) -> None:
    memory = service.add(project, make_draft("The API key rotates monthly"), "agent").memory
    service.update(memory.id, {"content": "The API key rotates weekly"}, "desktop-person")
    write = _queued(
        QueuedKind.UPDATE, memory.id, project, {"content": "The API key rotates daily"},
        base=memory.updated_at,
    )  # fmt: skip
    assert replay(service, write).outcome is Outcome.PROPOSED
    assert service.get(memory.id).content == "The API key rotates weekly"  # not overwritten
    (entry,) = service.inbox.entries(project)
    assert entry.proposal is not None
    assert entry.proposal.content == "The API key rotates daily"
    assert [m.memory_id for m in entry.proposal.merges] == [memory.id]


def test_a_removal_of_a_memory_changed_meanwhile_is_kept_aside(
    service: MemoryService, project: str
) -> None:
    memory = service.add(project, make_draft("Staging is at staging.example"), "agent").memory
    service.update(memory.id, {"importance": 5}, "desktop-person")
    write = _queued(QueuedKind.REMOVE, memory.id, project, base=memory.updated_at)
    result = replay(service, write)
    assert result.outcome is Outcome.KEPT
    assert "changed elsewhere" in result.reason
    assert not service.get(memory.id).disabled


def test_a_write_following_one_not_applied_is_not_applied_either(
    service: MemoryService, project: str, tmp_path: Path
) -> None:
    memory = service.add(project, make_draft("Logs are in /var/log/app"), "agent").memory
    write = QueuedWrite(
        8, QueuedKind.UPDATE, memory.id, project, "agent", 1.0, {"importance": 3}, None,
        None, follows=True,
    )  # fmt: skip
    assert replay(service, write).outcome is Outcome.PROPOSED
    assert service.get(memory.id).importance != 3


def test_an_add_the_rules_refuse_at_the_replay_is_kept_aside_not_lost(
    service: MemoryService, project: str
) -> None:
    write = _queued(
        QueuedKind.ADD, writing.new_memory_id(service.now()), project,
        {"content": "Config lives outside", "files": ["../../etc/app.conf"]},
    )  # fmt: skip
    result = replay(service, write)
    assert result.outcome is Outcome.KEPT
    assert "files" in result.reason
    assert service.count_memories(project) == 0

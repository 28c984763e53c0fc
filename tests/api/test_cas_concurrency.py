"""Two agents over real sockets and the GUI's own write path race on one memory.

Each writes as of the version it last read (as agents should, and as the GUI always
does) and undoes its own last edit now and then. No update may be lost: every write
that was acknowledged is in the audit history exactly once, was based on the version
current when it committed, and the final state is the last acknowledged write; every
write that would have overwritten someone else's was a conflict instead.
"""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from ltm_desktop.api.client import Client, ConflictError
from ltm_desktop.api.serialize import iso
from ltm_desktop.core.records import AuditAction, MemoryDraft
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui import ops

pytestmark = pytest.mark.every_backend

ROUNDS = 300
CONFLICT_REASONS = {"stale", "removed", "already_removed", "already_active"}


@dataclass(frozen=True)
class Ack:
    """An acknowledged write: based on version ``seen``, it left version ``made``."""

    actor: str
    action: str  # "updated", "removed" or "restored"
    seen: str
    made: str
    content: str


@dataclass
class Tally:
    acks: list[Ack] = field(default_factory=list)
    conflicts: int = 0


def check_refusal(reason: str | None, current: Any, memory_id: str, seen: str) -> None:
    """A conflict names its reason and carries the memory as stored now."""
    assert reason in CONFLICT_REASONS, reason
    assert current is not None
    assert current["id"] == memory_id
    if reason == "stale":
        assert current["updated_at"] != seen


class ApiWriter:
    """An agent on its own connection."""

    def __init__(self, socket_path: Path, name: str, memory_id: str) -> None:
        self.actor = name
        self.memory_id = memory_id
        self.client = Client(socket_path, client_name=name)

    def read(self) -> tuple[str, str, bool]:
        memory = self.client.memory_get(self.memory_id)
        return memory["updated_at"], memory["content"], memory["disabled"]

    def write(self, action: str, seen: str, content: str | None) -> tuple[str, str] | None:
        try:
            if action == "updated":
                m = self.client.memory_update(
                    self.memory_id, content=content, expected_updated_at=seen
                )
            elif action == "removed":
                m = self.client.memory_remove(self.memory_id, expected_updated_at=seen)
            else:
                m = self.client.memory_restore(self.memory_id, expected_updated_at=seen)
        except ConflictError as exc:
            refused = exc
        else:
            return m["updated_at"], m["content"]
        check_refusal(refused.reason, refused.current, self.memory_id, seen)
        return None

    def close(self) -> None:
        self.client.close()


class GuiWriter:
    """The desktop app's write path (ops.run with versioned writes), in process."""

    actor = ops.ACTOR

    def __init__(self, service: MemoryService, memory_id: str) -> None:
        self.service = service
        self.memory_id = memory_id
        self.versions: dict[str, float] = {}  # the API's text of a version -> the version

    def read(self) -> tuple[str, str, bool]:
        memory = self.service.get(self.memory_id)
        return self._text(memory.updated_at), memory.content, memory.disabled

    def _text(self, version: float) -> str:
        text = iso(version) or ""
        self.versions[text] = version
        return text

    def write(self, action: str, seen: str, content: str | None) -> tuple[str, str] | None:
        kind = {"updated": "update", "removed": "remove", "restored": "restore"}[action]
        values = {"content": content} if content is not None else {}
        write = ops.Write(self.memory_id, kind, self.versions[seen], values)  # type: ignore[arg-type]
        outcome = ops.run(self.service, [write])
        if outcome.conflicts or outcome.failed:
            for conflict in outcome.conflicts:
                assert conflict.reason in CONFLICT_REASONS
            for _, exc in outcome.failed:
                assert getattr(exc, "reason", None) in CONFLICT_REASONS, exc
            return None
        memory = outcome.done[0]
        return self._text(memory.updated_at), memory.content

    def close(self) -> None:
        pass


def play(writer: ApiWriter | GuiWriter, seed: int, tally: Tally, start: threading.Barrier) -> None:
    """Edit, undo the own last edit (as of the version it left), remove or restore."""
    rng = random.Random(seed)
    last_own: tuple[str, str] | None = None  # (version my update made, content before it)
    start.wait()
    for n in range(ROUNDS):
        roll = rng.random()
        if roll < 0.25 and last_own is not None:  # undo, like Ctrl+Z: as of my own version
            action, (seen, content) = "updated", last_own
            last_own = None
        else:
            seen, before, disabled = writer.read()
            if roll < 0.85:
                action, content = "updated", f"{writer.actor} wrote #{n}"
            else:
                action, content = ("restored" if disabled else "removed"), before
        result = writer.write(action, seen, content if action == "updated" else None)
        if result is None:
            tally.conflicts += 1
            continue
        made, stored = result
        tally.acks.append(Ack(writer.actor, action, seen, made, stored))
        if action == "updated" and roll >= 0.25:
            last_own = (made, before)


@pytest.mark.slow
def test_no_acknowledged_write_is_lost_and_every_lost_update_is_a_conflict(
    socket_path: Path, service: MemoryService
) -> None:
    project = service.resolve_scope(cwd="/srv/shared", register=True)
    created = service.add(project, MemoryDraft(content="The shared memory"), "setup").memory
    writers: list[ApiWriter | GuiWriter] = [
        ApiWriter(socket_path, "agent-a", created.id),
        ApiWriter(socket_path, "agent-b", created.id),
        GuiWriter(service, created.id),
    ]
    tallies = [Tally() for _ in writers]
    errors: list[BaseException] = []
    start = threading.Barrier(len(writers))

    def run(i: int) -> None:
        try:
            play(writers[i], i, tallies[i], start)
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(writers))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for writer in writers:
        writer.close()
    assert errors == []

    acks = [a for t in tallies for a in t.acks]
    conflicts = sum(t.conflicts for t in tallies)
    assert all(t.acks for t in tallies)
    assert conflicts > 0  # they did race

    # 1. the history accounts for every acknowledged write, by whom, and nothing else
    events = [e for e in service.history.memory(created.id) if e.action != AuditAction.CREATED]
    for writer in writers:
        for action in ("updated", "removed", "restored"):
            acked = sum(1 for a in acks if a.actor == writer.actor and a.action == action)
            logged = sum(1 for e in events if e.actor == writer.actor and e.action == action)
            assert acked == logged, (writer.actor, action, acked, logged)
    assert len(events) == len(acks)

    # 2. in commit order, each write was based on the version current when it committed
    updates = sorted((a for a in acks if a.action == "updated"), key=lambda a: a.made)
    assert len({a.made for a in updates}) == len(updates)  # every update made a new version
    pending = {w.actor: [a for a in acks if a.actor == w.actor] for w in writers}
    version = iso(created.updated_at)
    content = created.content
    for event in events:
        ack = pending[event.actor].pop(0)  # each writer's acks are in its own order
        assert ack.action == event.action.value
        assert ack.seen == version, "a write based on an older version was accepted"
        if ack.action == "updated":
            assert event.after is not None
            assert event.after["content"] == ack.content
            version, content = ack.made, ack.content
        else:
            assert ack.made == version  # removing and restoring leave updated_at as it was
    assert all(not left for left in pending.values())

    # 3. the stored memory is the last acknowledged write
    final = service.get(created.id)
    assert iso(final.updated_at) == version == updates[-1].made
    assert final.content == content == updates[-1].content
    last_state = [e.action for e in events if e.action != AuditAction.UPDATED]
    assert final.disabled == (bool(last_state) and last_state[-1] == AuditAction.REMOVED)

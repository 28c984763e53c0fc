"""``ltm-desktop verify``: the store's own checks, then the audit history replayed.

Replaying a memory's events (its created or imported record, then each change's new
values) must give the memory as stored: a row edited behind the history's back (or a
history edited behind the row's) shows here, naming the memory. Erased memories must be
gone. The quick part (the store's bounded check) runs at every start of the app.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Protocol

from ltm_desktop.core.backend import MemoryStore, SearchRepair, Verification
from ltm_desktop.core.records import AuditAction, AuditEvent, Memory

REPLAYED = ("title", "content", "category", "importance", "tags", "ttl_days", "disabled")
PAGE = 1_000


class History(Protocol):
    """What the replay reads: the open store, or a backup being vetted before it is
    restored (``store.verify.FrozenHistory``: the same check, on a file not yet served)."""

    def events_after(self, seq: int, limit: int) -> list[AuditEvent]: ...
    def get_memories(self, memory_ids: Sequence[str]) -> list[Memory]: ...


def _events(store: History) -> Iterator[AuditEvent]:
    seq = 0
    while page := store.events_after(seq, PAGE):
        yield from page
        seq = page[-1].seq


def _stored(memory: Memory) -> dict[str, Any]:
    values = {name: getattr(memory, name) for name in REPLAYED}
    values["category"] = memory.category.value
    values["tags"] = list(memory.tags)
    return values


def replay(events: Iterator[AuditEvent]) -> tuple[dict[str, dict[str, Any]], set[str]]:
    """(memory id -> the replayed fields, ids erased) from the history, in order."""
    state: dict[str, dict[str, Any]] = {}
    erased: set[str] = set()
    for event in events:
        if not event.memory_id.startswith("mem_"):
            continue  # proposals and extraction runs
        if event.action is AuditAction.ERASED:
            erased.add(event.memory_id)
            state.pop(event.memory_id, None)
            continue
        if event.memory_id in erased or event.after is None:
            continue
        fields = state.setdefault(event.memory_id, {})
        fields.update({k: v for k, v in event.after.items() if k in REPLAYED})
    return state, erased


def check_replay(store: History) -> list[str]:
    """Where the rows differ from their replayed history, each memory named (empty: they
    agree). The rows are not covered by the audit chain, so this is what shows a row
    edited behind the history's back."""
    state, erased = replay(_events(store))
    problems = []
    ids = sorted(state | dict.fromkeys(erased))
    stored: dict[str, Memory] = {}
    for start in range(0, len(ids), PAGE):
        stored.update({m.id: m for m in store.get_memories(ids[start : start + PAGE])})
    for memory_id in sorted(erased & stored.keys()):
        problems.append(f"memory {memory_id} was erased but is still stored")
    for memory_id, fields in sorted(state.items()):
        memory = stored.get(memory_id)
        if memory is None:
            problems.append(f"memory {memory_id} is in the history but not stored")
            continue
        now = _stored(memory)
        differ = [name for name, value in fields.items() if now[name] != value]
        if differ:
            problems.append(
                f"memory {memory_id} differs from its history in {', '.join(differ)} "
                "(changed without an audit event)"
            )
    return problems


class Verifier:
    """The store's checks and the history's replay: ``MemoryService.integrity``."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store

    def verify(self, *, quick: bool = False) -> Verification:
        """The store's checks, plus (unless ``quick``) the history replayed against the rows."""
        found = self.store.verify(quick)
        if quick or found.problems:
            return found
        problems = tuple(check_replay(self.store))
        return Verification(problems, found.head, found.events, quick)

    def repair_search(self) -> SearchRepair:
        """Rebuild the search indexes ``verify`` finds damaged or out of step with their
        rows (the store backs the files up first); the rows are left as they are."""
        return self.store.repair_search()

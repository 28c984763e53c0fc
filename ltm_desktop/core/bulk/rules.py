"""Bulk writes' rules: many memories changed in a few transactions, each still audited alone.

A bulk action (remove, restore, keep, its undo, the same field values on many memories) is
split into batches of ``BATCH_SIZE``; each batch is one unit of work
(``MemoryStore.write``). Inside it every memory gets the single write's own decision
(``writing.set_disabled``, ``update_memory``, ``mark_reviewed``,
``reviewing.unmark_reviewed``), its own compare-and-swap against the version the caller
saw, and its own audit event. A memory that one of those decisions refuses (it moved on,
it is already in the Trash, it would shadow an active twin) is refused alone: the
decisions raise before they write anything, so the rest of its batch still commits.

A storage error ends the bulk action: the batch it hit is rolled back, the batches
before stay committed, and the result says how far it got (``BulkResult.stopped``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from ltm_desktop.core import writing
from ltm_desktop.core.backend import WriteTxn
from ltm_desktop.core.errors import LtmError, StorageError
from ltm_desktop.core.inbox import reviewing
from ltm_desktop.core.privacy.screening import Screen
from ltm_desktop.core.records import Memory, ReviewState

T = TypeVar("T")
R = TypeVar("R")
BATCH_SIZE = 500  # memories per transaction: the write lock is released in between
BulkAction = Literal["update", "remove", "restore", "keep", "unreview"]
EVENT_OF: dict[str, str] = {
    "update": "updated",
    "remove": "removed",
    "restore": "restored",
    "keep": "reviewed",
    "unreview": "reviewed",
}
VIEW_ACTIONS = frozenset({"update", "remove", "restore"})  # those a MEMORY.md may show
Progress = Callable[[int, int], None]  # (memories settled so far, of how many)
TAG_EDITS = ("add_tags", "remove_tags")  # an update's edits of each memory's own tags


@dataclass(frozen=True, slots=True)
class Change:
    """One memory's part of a bulk write, as of the version the caller saw of it.

    ``values``: for ``update`` the fields to set (as ``MemoryService.update`` takes them,
    or ``add_tags`` / ``remove_tags``: tags added to or taken from each memory's own);
    for ``unreview`` (the undo of a Keep) the ``reviewed_at`` and ``review_state`` it had.
    """

    memory_id: str
    action: BulkAction
    expected_updated_at: float | None = None
    values: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class BulkResult:
    """What a bulk write did, in the order asked.

    Attributes:
        done: (the memory before, after) for each change written.
        changes: the change that made each of ``done``.
        refused: the changes a rule refused, each with why (a ``Conflict`` carries the
            memory as stored); nothing was written to those memories.
        stopped: the storage error that ended the work part-way, if any.
        not_done: the changes not made because of ``stopped`` (the batch it rolled back,
            and those after it).
    """

    done: list[tuple[Memory, Memory]] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    refused: list[tuple[Change, LtmError]] = field(default_factory=list)
    stopped: LtmError | None = None
    not_done: list[Change] = field(default_factory=list)

    @property
    def settled(self) -> int:
        """How many changes were decided (written or refused)."""
        return len(self.done) + len(self.refused)


def apply(
    txn: WriteTxn,
    change: Change,
    actor: str,
    now: float,
    *,
    screen: Screen,
    embed: Callable[[Memory], writing.Embedding | None] | None = None,
) -> tuple[Memory, Memory]:
    """Make one change inside ``txn``: (before, after). Raises what the single write
    raises, before writing anything (so the caller may carry on with the next)."""
    memory_id, expected = change.memory_id, change.expected_updated_at
    if change.action == "update":
        values = change.values
        if any(name in values for name in TAG_EDITS):
            values = with_tag_edits(txn.get_memory(memory_id).tags, values)
        return writing.update_memory(
            txn, memory_id, values, actor, now, expected, embed, screen=screen
        )
    before = txn.get_memory(memory_id)
    if change.action in ("remove", "restore"):
        disabled = change.action == "remove"
        after = writing.set_disabled(
            txn, memory_id, disabled, actor, now, expected_updated_at=expected
        )
    elif change.action == "keep":
        after = writing.mark_reviewed(txn, memory_id, actor, now, expected)
    else:
        after = reviewing.unmark_reviewed(
            txn, memory_id, actor, now, earlier_review(change.values), expected
        )
    return before, after


def with_tag_edits(tags: Sequence[str], values: dict[str, Any]) -> dict[str, Any]:
    """``values`` with its tag edits made on ``tags`` (a memory's, read in the transaction
    that writes it: the write's compare-and-swap covers them)."""
    removed = set(values.get("remove_tags", ()))
    kept = [tag for tag in tags if tag not in removed]
    added = [tag for tag in values.get("add_tags", ()) if tag not in kept]
    rest = {name: value for name, value in values.items() if name not in TAG_EDITS}
    return {**rest, "tags": kept + added}


def earlier_review(values: dict[str, Any]) -> tuple[float | None, ReviewState | None]:
    """What the undo of a Keep puts back: (reviewed_at, review_state)."""
    state = values.get("review_state")
    return values.get("reviewed_at"), None if state is None else ReviewState(state)


def each_alone(
    items: Sequence[T], act: Callable[[T], R]
) -> tuple[list[tuple[int, R]], list[tuple[int, LtmError]]]:
    """``act`` on each item: (done as (its index, result), refused as (its index, why)).
    An item a rule refuses is refused alone (the rules raise before writing anything);
    a storage error propagates (the caller's transaction rolls back)."""
    done: list[tuple[int, R]] = []
    refused: list[tuple[int, LtmError]] = []
    for index, item in enumerate(items):
        try:
            done.append((index, act(item)))
        except StorageError:
            raise
        except LtmError as exc:
            refused.append((index, exc))
    return done, refused


def in_batches(
    count: int, size: int, write: Callable[[int, int], None], anything_done: Callable[[], bool]
) -> tuple[StorageError | None, int]:
    """Call ``write(start, end)`` for each batch of ``count`` items; (the storage error that
    ended the work once something was done, and where it stopped) or (None, count). One
    that hits before anything was done is raised, as a single write's would be."""
    size = max(1, size)
    for start in range(0, count, size):
        try:
            write(start, min(count, start + size))
        except StorageError as exc:
            if not anything_done():
                raise
            return exc, start
    return None, count


def apply_batch(
    txn: WriteTxn,
    changes: Sequence[Change],
    actor: str,
    now: float,
    *,
    screen: Screen,
    embed: Callable[[Memory], writing.Embedding | None] | None = None,
) -> tuple[list[tuple[int, Memory, Memory]], list[tuple[int, LtmError]]]:
    """Each change in one transaction: (written as (its index, before, after), refused as
    (its index, why)); see ``each_alone``."""
    done, refused = each_alone(
        changes, lambda change: apply(txn, change, actor, now, screen=screen, embed=embed)
    )
    return [(index, before, after) for index, (before, after) in done], refused

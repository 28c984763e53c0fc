"""One function per user action; each runs on a worker and talks only to the service.

Every write is made as the actor ``gui``. Bulk actions carry on past a memory that
cannot be changed (and say which), but stop at a storage error: then the database
itself is in trouble and the person must be told at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ltm_desktop.core.errors import LtmError, StaleEdit, StorageError
from ltm_desktop.core.records import AddResult, Memory, MemoryDraft
from ltm_desktop.core.rules import EDITABLE_FIELDS
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.errors import EditConflict

ACTOR = "gui"


@dataclass
class BulkOutcome:
    done: list[Memory] = field(default_factory=list)
    before: list[Memory] = field(default_factory=list)
    failed: list[tuple[str, LtmError]] = field(default_factory=list)


def editable_values(memory: Memory, names: Iterable[str] = EDITABLE_FIELDS) -> dict[str, Any]:
    """The named editable fields as values ``service.update`` accepts."""
    values: dict[str, Any] = {}
    for name in names:
        value = getattr(memory, name)
        if name == "category":
            value = value.value
        elif name == "tags":
            value = list(value)
        values[name] = value
    return values


def _bulk(
    service: MemoryService, ids: Iterable[str], change: Callable[[str], Memory]
) -> BulkOutcome:
    outcome = BulkOutcome()
    for memory_id in ids:
        try:
            before = service.get(memory_id)
            outcome.done.append(change(memory_id))
            outcome.before.append(before)
        except StorageError:
            raise
        except LtmError as exc:
            outcome.failed.append((memory_id, exc))
    return outcome


def soft_delete(service: MemoryService, ids: Iterable[str]) -> BulkOutcome:
    return _bulk(service, ids, lambda i: service.remove(i, ACTOR))


def restore(service: MemoryService, ids: Iterable[str]) -> BulkOutcome:
    return _bulk(service, ids, lambda i: service.restore(i, ACTOR))


def keep(service: MemoryService, ids: Iterable[str]) -> BulkOutcome:
    """Mark stale candidates reviewed: they leave the stale list."""
    return _bulk(service, ids, lambda i: service.mark_reviewed(i, ACTOR))


def set_importance(service: MemoryService, ids: Iterable[str], importance: int) -> BulkOutcome:
    return _bulk(service, ids, lambda i: service.update(i, {"importance": importance}, ACTOR))


def apply_each(service: MemoryService, values: dict[str, dict[str, Any]]) -> BulkOutcome:
    """Set per-memory field values (undo of an importance change)."""
    return _bulk(service, list(values), lambda i: service.update(i, values[i], ACTOR))


def add(service: MemoryService, project_id: str, draft: MemoryDraft) -> AddResult:
    return service.add(project_id, draft, ACTOR)


def load(service: MemoryService, memory_id: str) -> Memory:
    return service.get(memory_id)


def save_edit(
    service: MemoryService, base: Memory, changes: dict[str, Any]
) -> tuple[Memory, Memory]:
    """Apply the editor's changes unless someone else changed the memory since it was opened.

    Raises:
        EditConflict: the stored memory differs from ``base`` (carries the current one).
    """
    expected = {**editable_values(base), "disabled": base.disabled}
    try:
        return base, service.update(base.id, changes, ACTOR, expected=expected)
    except StaleEdit:
        raise EditConflict(service.get(base.id)) from None


def apply_values(
    service: MemoryService,
    memory_id: str,
    values: dict[str, Any],
    expected: dict[str, Any] | None = None,
) -> Memory:
    """Set fields back to given values (revert to a version, undo an edit).

    Args:
        expected: the values these fields must still have (undo passes what the edit set,
            so an agent's later change is never silently overwritten: StaleEdit instead).
    """
    return service.update(memory_id, values, ACTOR, expected=expected)

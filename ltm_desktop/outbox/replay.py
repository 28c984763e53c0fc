"""Replaying one queued write through the normal write path, with the same rules.

An add goes through ``MemoryService.add`` (dedup, supersede) with the id minted when it
was queued; an edit, removal or restore through the service with the base version its
writer saw (compare-and-swap). Replaying twice (a crash between the database's commit
and the outbox's removal) changes nothing the second time: an add whose id is already
stored, or an edit already in the memory, is recognised as done.

A write whose base no longer matches (the memory was edited elsewhere meanwhile) is
never applied over that edit, nor dropped: an edit becomes an Inbox proposal to replace
the memory as it is now with the offline text (approving applies it, rejecting keeps the
current one); a removal or restore, which has no text to propose, is kept aside in the
outbox (``kept``) with the reason, and counted in ``status``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from ltm_desktop.core import rules
from ltm_desktop.core.errors import Conflict, InvalidInput, NotFound, StaleEdit
from ltm_desktop.core.offline import QueuedKind, QueuedWrite
from ltm_desktop.core.records import Memory, MemoryDraft, Provenance
from ltm_desktop.core.service import MemoryService

log = logging.getLogger(__name__)
OFFLINE_SOURCE = "offline edit"


class Outcome(StrEnum):
    APPLIED = "applied"  # committed now
    ALREADY = "already"  # committed by an earlier replay (or the change was there)
    PROPOSED = "proposed"  # a conflict: an Inbox proposal holds it
    KEPT = "kept"  # could not be applied nor proposed: kept aside in the outbox


@dataclass(frozen=True, slots=True)
class Replayed:
    outcome: Outcome
    version: float | None = None  # the memory's updated_at after it (for the next write)
    reason: str = ""


def replay(service: MemoryService, write: QueuedWrite) -> Replayed:
    """Apply ``write``; raises StorageError (e.g. DatabaseUnreachable) when the database
    could not be used, leaving the write where it is."""
    if write.kind is QueuedKind.ADD:
        return _add(service, write)
    if write.follows and write.base_version is None:
        return _conflict(service, write, "an earlier offline change to it was not applied")
    try:
        if write.kind is QueuedKind.UPDATE:
            memory = service.update(
                write.memory_id,
                dict(write.fields),
                write.actor,
                expected_updated_at=write.base_version,
            )
        else:
            memory = _set_disabled(service, write)
    except StaleEdit as exc:
        current = exc.current or service.get(write.memory_id)
        if _already_applied(write, current):
            return Replayed(Outcome.ALREADY, current.updated_at)
        return _conflict(service, write, "it was changed elsewhere while this machine was offline")
    except Conflict as exc:
        if exc.reason is not None and exc.reason.is_already:
            return Replayed(Outcome.ALREADY, service.get(write.memory_id).updated_at)
        return _keep(write, f"refused: {exc}")
    except (NotFound, InvalidInput) as exc:
        return _keep(write, f"refused: {exc}")
    return Replayed(Outcome.APPLIED, memory.updated_at)


def _set_disabled(service: MemoryService, write: QueuedWrite) -> Memory:
    if write.kind is QueuedKind.REMOVE:
        return service.remove(write.memory_id, write.actor, expected_updated_at=write.base_version)
    return service.restore(write.memory_id, write.actor, expected_updated_at=write.base_version)


def _add(service: MemoryService, write: QueuedWrite) -> Replayed:
    try:
        stored = service.get(write.memory_id)
    except NotFound:
        pass
    else:
        return Replayed(Outcome.ALREADY, stored.updated_at)
    try:
        root = rules.normalize_cwd(write.cwd) if write.cwd is not None else None
        result = service.add(
            write.project_id,
            _draft(write.fields),
            write.actor,
            root=root,
            memory_id=write.memory_id,
        )
    except (InvalidInput, Conflict) as exc:
        return _keep(write, f"refused: {exc}")
    if write.cwd is not None:
        service.resolve_scope(cwd=write.cwd, register=True)
    if result.memory.id != write.memory_id:  # deduplicated into a memory stored meanwhile
        log.info("queued %s was already stored as %s", write.memory_id, result.memory.id)
        return Replayed(Outcome.APPLIED, None)
    return Replayed(Outcome.APPLIED, result.memory.updated_at)


def _draft(fields: dict[str, Any]) -> MemoryDraft:
    return MemoryDraft(
        content=fields["content"],
        title=fields.get("title"),
        category=fields.get("category", "knowledge"),
        importance=fields.get("importance"),
        tags=tuple(fields.get("tags") or ()),
        ttl_days=fields.get("ttl_days"),
        files=tuple(fields.get("files") or ()),
    )


def _already_applied(write: QueuedWrite, current: Memory) -> bool:
    """The memory already is what ``write`` makes it (an earlier replay committed it)."""
    if write.kind is QueuedKind.REMOVE:
        return current.disabled
    if write.kind is QueuedKind.RESTORE:
        return not current.disabled
    try:
        wanted = rules.validate_changes(dict(write.fields))
    except InvalidInput:
        return False
    return all(_same(getattr(current, name, None), value) for name, value in wanted.items())


def _same(stored: object, wanted: object) -> bool:
    if isinstance(stored, tuple | list) and isinstance(wanted, tuple | list):
        return list(stored) == list(wanted)
    return stored == wanted or str(stored) == str(wanted)


def _conflict(service: MemoryService, write: QueuedWrite, why: str) -> Replayed:
    """An offline edit that cannot be applied as it was: an Inbox proposal to replace the
    current memory with the edited text, else kept aside."""
    if write.kind is not QueuedKind.UPDATE:
        return _keep(write, f"not applied: {why}")
    try:
        current = service.get(write.memory_id)
        draft = _edited(current, write.fields, service.settings.default_importance)
    except (NotFound, InvalidInput) as exc:
        return _keep(write, f"not applied: {why}; and {exc}")
    provenance = Provenance(
        run_id=f"outbox-{write.seq}",
        agent=write.actor,
        session_id="",
        source=f"{OFFLINE_SOURCE} by {write.actor} on version {write.base_version}: {why}",
        model="",
        extracted_at=write.queued_at,
    )
    made = service.inbox.propose_merges(current.project_id, [(draft, [current])], provenance)
    if not made:
        return _keep(write, f"not applied: {why}; the memory waits in another Inbox proposal")
    log.info("offline edit %d of %s is an Inbox proposal: %s", write.seq, write.memory_id, why)
    return Replayed(Outcome.PROPOSED, None, why)


def _edited(current: Memory, fields: dict[str, Any], default_importance: int) -> MemoryDraft:
    """The memory as the offline edit would have left it (on top of what is stored now)."""
    changes = rules.validate_changes(dict(fields))
    base = MemoryDraft(
        content=current.content,
        title=current.title,
        category=current.category,
        importance=current.importance,
        tags=current.tags,
        ttl_days=current.ttl_days,
        files=current.files,
    )
    draft = replace(base, **{k: v for k, v in changes.items() if hasattr(base, k)})
    return rules.validate_draft(draft, default_importance)


def _keep(write: QueuedWrite, reason: str) -> Replayed:
    log.warning(
        "offline change %d (%s of %s) kept aside: %s",
        write.seq,
        write.kind.value,
        write.memory_id,
        reason,
    )
    return Replayed(Outcome.KEPT, None, reason)

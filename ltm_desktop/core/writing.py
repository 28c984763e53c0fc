"""The memory writes' decisions: dedup, supersede, conflicts, versions, TTL renewal.

Each function runs inside one unit of work (``MemoryStore.write``): it reads what it
needs through the ``WriteTxn``, decides, and writes through it, so the decision and
the write commit together or not at all. The store only stores; every rule of the
memory model that a write applies is here (or in ``rules`` and ``versions``).
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ltm_desktop.core.backend import AuditEntry, WriteTxn
from ltm_desktop.core.errors import Conflict, ConflictReason
from ltm_desktop.core.history.auditing import changed_fields, memory_snapshot
from ltm_desktop.core.privacy.injection import memory_reason
from ltm_desktop.core.privacy.screening import Screen
from ltm_desktop.core.records import (
    AddResult,
    AddStatus,
    AuditAction,
    Memory,
    MemoryDraft,
    Provenance,
    ReviewState,
)
from ltm_desktop.core.rules import (
    SUPERSEDE_THRESHOLD,
    content_signature,
    jaccard,
    similarity_tokens,
)
from ltm_desktop.core.versions import check_version, next_version

Embedding = tuple[str, bytes]  # (model, float32 unit vector): what ``WriteTxn.set_vector`` keeps


def embedding_text(memory: Memory | MemoryDraft) -> str:
    """What a memory's vector is made from: its title, content and tags (the fields the
    full-text index holds, so both kinds of search see the same text)."""
    parts = [memory.title or "", memory.content, " ".join(memory.tags)]
    return "\n".join(part for part in parts if part)


def new_memory_id(now: float) -> str:
    """Opaque, unique, and roughly time-ordered."""
    return f"mem_{int(now * 1000):011x}{secrets.token_hex(5)}"


def _audit(
    txn: WriteTxn,
    memory: Memory,
    actor: str,
    now: float,
    action: AuditAction,
    before: dict[str, Any] | None,
    after: dict[str, Any] | None,
) -> None:
    txn.record(AuditEntry(now, memory.id, memory.project_id, actor, action, before, after))


def _deduplicate(txn: WriteTxn, before: Memory, actor: str, now: float) -> AddResult:
    """Adding an active memory's text again is a use of it, and renews its TTL."""
    updated_at = next_version(before.updated_at, now)
    after = replace(before, updated_at=updated_at, use_count=before.use_count + 1)
    txn.save_memory(before, after)
    old = {"updated_at": before.updated_at, "use_count": before.use_count}
    new = {"updated_at": after.updated_at, "use_count": after.use_count}
    _audit(txn, after, actor, now, AuditAction.DEDUPLICATED, old, new)
    return AddResult(AddStatus.DEDUPLICATED, after)


def _most_similar(txn: WriteTxn, project_id: str, tokens: frozenset[str]) -> str | None:
    """The id of the active memory most similar to ``tokens`` above the threshold.

    Jaccard > SUPERSEDE_THRESHOLD bounds what the store is asked to filter by: the other
    memory's token count (strictly between count * T and count / T), and how many of
    these tokens it holds (more than count * T: the intersection exceeds T times the
    union, which is at least ``tokens``). The store returns every such memory; this
    computes the exact similarity.
    """
    count = len(tokens)
    if not count:
        return None
    low, high = count * SUPERSEDE_THRESHOLD, count / SUPERSEDE_THRESHOLD
    at_least = max(1, math.floor(count * SUPERSEDE_THRESHOLD))  # one lower is harmless
    best: tuple[float, str] | None = None
    for memory_id, other in txn.near_duplicates(project_id, tokens, at_least, low, high):
        score = jaccard(tokens, similarity_tokens(other))
        if score > SUPERSEDE_THRESHOLD and (best is None or score > best[0]):
            best = (score, memory_id)
    return None if best is None else best[1]


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a new memory comes from when that is not simply its actor: an approved
    proposal keeps the extractor as its ``source`` though a person added it, and an
    extracted memory stored without review is ``unreviewed`` with its provenance."""

    source: str | None = None
    review_state: ReviewState | None = None
    provenance: Provenance | None = None
    note: dict[str, Any] | None = None  # added to the creation's audit event (the file read)
    approved: bool = False  # a person approved this text (an inbox approval): never flagged


def _new_memory(
    project_id: str,
    draft: MemoryDraft,
    signature: str,
    actor: str,
    now: float,
    origin: Origin,
    memory_id: str | None = None,
) -> Memory:
    """A validated draft as a new memory, flagged when it reads like an instruction."""
    memory = Memory(
        id=memory_id or new_memory_id(now),
        project_id=project_id,
        title=str(draft.title),
        content=draft.content,
        category=draft.category,  # type: ignore[arg-type]  # validated
        importance=int(draft.importance or 0),  # validated: set
        tags=tuple(draft.tags),
        files=tuple(draft.files),
        signature=signature,
        created_at=now,
        updated_at=now,
        last_used_at=None,
        use_count=0,
        ttl_days=draft.ttl_days,
        disabled=False,
        source=origin.source or actor,
        superseded_by=None,
        review_state=origin.review_state,
        provenance=origin.provenance,
    )
    return memory if origin.approved else flag_instructions(memory)


def _creation(
    memory: Memory,
    actor: str,
    action: AuditAction,
    supersedes: str | None = None,
    origin: Origin | None = None,
) -> AuditEntry:
    """The audit event of a new memory: its whole record, and what it replaced."""
    after = memory_snapshot(memory)
    if supersedes:
        after["supersedes"] = supersedes
    after.update((origin and origin.note) or {})
    return AuditEntry(memory.created_at, memory.id, memory.project_id, actor, action, None, after)


def _insert(
    txn: WriteTxn,
    project_id: str,
    draft: MemoryDraft,
    signature: str,
    actor: str,
    now: float,
    *,
    tokens: frozenset[str],
    action: AuditAction,
    supersedes: str | None = None,
    origin: Origin | None = None,
    vector: Embedding | None = None,
    memory_id: str | None = None,
) -> Memory:
    """Insert a validated draft with its audit event (and its vector, when given)."""
    origin = origin or Origin()
    memory = _new_memory(project_id, draft, signature, actor, now, origin, memory_id)
    txn.insert_memory(memory, tokens, vector)
    txn.record(_creation(memory, actor, action, supersedes, origin))
    return memory


def add_memory(
    txn: WriteTxn,
    project_id: str,
    draft: MemoryDraft,
    actor: str,
    now: float,
    origin: Origin | None = None,
    *,
    screen: Screen,
    vector: Embedding | None = None,
    memory_id: str | None = None,
) -> AddResult:
    """Insert a validated draft, or deduplicate, or supersede its nearest twin.

    A deduplicated add leaves the existing memory's origin as it is (it was there first).

    Args:
        screen: the secrets rule (SecretRefused, or the draft redacted, before anything).
        vector: (model, vector) of the draft's ``embedding_text``, kept with a new memory.
        memory_id: the new memory's id when it was minted earlier (``new_memory_id``: a
            write queued offline keeps the id its writer was given); None: a new one.
    """
    draft = screen.draft(draft)
    signature = content_signature(draft.content)
    twin = txn.find_active(project_id, signature)
    if twin is not None:
        return _deduplicate(txn, twin, actor, now)
    tokens = similarity_tokens(draft.content)
    superseded_id = _most_similar(txn, project_id, tokens)
    memory = _insert(
        txn,
        project_id,
        draft,
        signature,
        actor,
        now,
        tokens=tokens,
        action=AuditAction.CREATED,
        supersedes=superseded_id,
        origin=origin,
        vector=vector,
        memory_id=memory_id,
    )
    if superseded_id is not None:
        set_disabled(txn, superseded_id, True, actor, now, superseded_by=memory.id)
    status = AddStatus.SUPERSEDED if superseded_id else AddStatus.CREATED
    return AddResult(status, memory, superseded_id)


def import_memories(
    txn: WriteTxn,
    project_id: str,
    drafts: Sequence[MemoryDraft],
    actor: str,
    now: float,
    *,
    screen: Screen,
) -> list[Memory]:
    """Insert validated drafts as they are (no supersede); texts already there (or earlier
    in ``drafts``) are skipped. ``screen`` as in ``add_memory`` (one refused draft imports
    nothing). The batch is stored and audited with a statement or so per table, not one
    round of statements per memory."""
    screened = [screen.draft(draft) for draft in drafts]
    signatures = [content_signature(draft.content) for draft in screened]
    taken = txn.active_signatures(project_id, signatures)
    batch: list[tuple[Memory, Collection[str]]] = []
    for draft, signature in zip(screened, signatures, strict=True):
        if signature in taken:
            continue
        taken.add(signature)
        memory = _new_memory(project_id, draft, signature, actor, now, Origin())
        batch.append((memory, similarity_tokens(draft.content)))
    txn.insert_memories(batch)
    txn.record_all([_creation(memory, actor, AuditAction.IMPORTED) for memory, _ in batch])
    return [memory for memory, _ in batch]


def flag_instructions(memory: Memory) -> Memory:
    """A memory whose text reads like an instruction to the model waits for a person
    (``unreviewed``, see ``core.injection``); others are returned as they are."""
    if memory.review_state is None and memory_reason(memory):
        return replace(memory, review_state=ReviewState.UNREVIEWED)
    return memory


def _active_twin(txn: WriteTxn, memory: Memory, signature: str) -> str | None:
    """The id of the active memory of ``memory``'s scope with ``signature``, if any (the
    callers ask about a signature that ``memory`` does not hold while active)."""
    twin = txn.find_active(memory.project_id, signature)
    return None if twin is None else twin.id


def update_memory(
    txn: WriteTxn,
    memory_id: str,
    changes: dict[str, Any],
    actor: str,
    now: float,
    expected_updated_at: float | None = None,
    embed: Callable[[Memory], Embedding | None] | None = None,
    *,
    screen: Screen,
) -> tuple[Memory, Memory]:
    """Apply validated ``changes``; returns (before, after). No change means no event.

    A memory in the trash is not edited (Conflict ``removed``): restoring it is a
    separate, deliberate write.

    Args:
        expected_updated_at: the ``updated_at`` the caller last saw; if the memory has
            moved on since, StaleEdit is raised and nothing is written.
        embed: the (model, vector) of a memory's ``embedding_text``, to keep a memory
            whose text changed searchable by meaning (None: the backfill will).
        screen: the secrets rule, applied to the changed text fields.
    """
    changes = screen.changes(changes)
    before = txn.get_memory(memory_id)
    check_version(before, expected_updated_at)
    if before.disabled:
        raise Conflict(
            f"memory {memory_id} is in the trash; restore it before editing it",
            reason=ConflictReason.REMOVED,
            current=before,
        )
    after = replace(before, **changes)
    if "content" in changes:
        after = replace(after, signature=content_signature(after.content))
    if (after.title, after.content) != (before.title, before.content):
        after = flag_instructions(after)
    if after == before:
        return before, before
    if after.signature != before.signature:
        twin = _active_twin(txn, before, after.signature)
        if twin is not None:
            raise Conflict(
                f"another active memory ({twin}) already has this content; "
                "edit that one or change the text",
                other_id=twin,
                reason=ConflictReason.DUPLICATE,
                current=before,
            )
    after = replace(after, updated_at=next_version(before.updated_at, now))
    tokens = similarity_tokens(after.content) if after.content != before.content else None
    txn.save_memory(before, after, tokens)
    if embed is not None and embedding_text(after) != embedding_text(before):
        vector = embed(after)
        if vector is not None:
            txn.set_vector(after.id, *vector)
    old, new = changed_fields(before, after)
    _audit(txn, after, actor, now, AuditAction.UPDATED, old, new)
    return before, after


def set_disabled(
    txn: WriteTxn,
    memory_id: str,
    disabled: bool,
    actor: str,
    now: float,
    *,
    superseded_by: str | None = None,
    action: AuditAction | None = None,
    expected_updated_at: float | None = None,
) -> Memory:
    """Soft-delete (or restore) one memory; restoring refuses to shadow an active twin,
    and renews the TTL of a memory that expired (restoring is asking for it back).

    Args:
        expected_updated_at: as in ``update_memory``: StaleEdit if the memory moved on.
    """
    before = txn.get_memory(memory_id)
    check_version(before, expected_updated_at)
    if before.disabled == disabled:
        state = "removed" if disabled else "active"
        raise Conflict(
            f"memory {memory_id} is already {state}",
            reason=ConflictReason.already(state),
            current=before,
        )
    if disabled:
        after = replace(before, disabled=True, disabled_at=now, superseded_by=superseded_by)
        default_action = AuditAction.SUPERSEDED if superseded_by else AuditAction.REMOVED
    else:
        twin = _active_twin(txn, before, before.signature)
        if twin is not None:
            raise Conflict(
                f"cannot restore {memory_id}: an active memory ({twin}) now has the same "
                "content; remove that one first",
                other_id=twin,
                reason=ConflictReason.DUPLICATE,
                current=before,
            )
        expired = before.is_expired(now)
        updated_at = next_version(before.updated_at, now) if expired else before.updated_at
        after = replace(
            before, disabled=False, disabled_at=None, superseded_by=None, updated_at=updated_at
        )
        default_action = AuditAction.RESTORED
    txn.save_memory(before, after)
    old, new = changed_fields(before, after)
    if after.updated_at != before.updated_at:  # a renewing restore: record it
        old["updated_at"], new["updated_at"] = before.updated_at, after.updated_at
    _audit(txn, after, actor, now, action or default_action, old, new)
    return after


def mark_reviewed(
    txn: WriteTxn,
    memory_id: str,
    actor: str,
    now: float,
    expected_updated_at: float | None = None,
) -> Memory:
    """Record that a person looked at a memory and kept it: a stale candidate, or an
    unreviewed one (StaleEdit if it changed since they looked: what they judged is not
    what is stored)."""
    before = txn.get_memory(memory_id)
    check_version(before, expected_updated_at)
    after = replace(before, reviewed_at=now, review_state=None)
    txn.save_memory(before, after)
    old: dict[str, Any] = {"reviewed_at": before.reviewed_at}
    new: dict[str, Any] = {"reviewed_at": now}
    if before.review_state is not None:
        old["review_state"], new["review_state"] = before.review_state.value, None
    _audit(txn, after, actor, now, AuditAction.REVIEWED, old, new)
    return after


def purge_expired(txn: WriteTxn, project_id: str | None, actor: str, now: float) -> list[Memory]:
    """Move every memory whose TTL ran out (in one scope, or all) to the trash."""
    return [
        set_disabled(txn, memory_id, True, actor, now, action=AuditAction.EXPIRED)
        for memory_id in txn.expired_ids(project_id, now)
    ]

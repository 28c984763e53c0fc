"""Every statement that changes a memory, each paired with its audit event.

Functions here run inside a transaction opened by the caller and never commit.
"""

from __future__ import annotations

import secrets
import sqlite3
from dataclasses import replace
from typing import Any

from ltm_desktop.core.errors import Conflict, NotFound, echoed
from ltm_desktop.core.query import split_words
from ltm_desktop.core.records import (
    SECONDS_PER_DAY,
    AddResult,
    AddStatus,
    AuditAction,
    Memory,
    MemoryDraft,
)
from ltm_desktop.core.rules import (
    SUPERSEDE_THRESHOLD,
    content_signature,
    jaccard,
    similarity_tokens,
)
from ltm_desktop.core.versions import check_version, next_version
from ltm_desktop.store.audit import record_audit
from ltm_desktop.store.fts_tables import memory_table
from ltm_desktop.store.indexing import index_memory, unindex_memory, write_tags
from ltm_desktop.store.rarity import WordRarity
from ltm_desktop.store.rows import (
    MEMORY_COLUMNS,
    MEMORY_FROM,
    changed_fields,
    memory_from_row,
    memory_snapshot,
    tags_json,
)
from ltm_desktop.store.search import near_duplicate_candidates


def new_memory_id(now: float) -> str:
    """Opaque, unique, and roughly time-ordered."""
    return f"mem_{int(now * 1000):011x}{secrets.token_hex(5)}"


def expires_at(updated_at: float, ttl_days: int | None) -> float | None:
    return None if ttl_days is None else updated_at + ttl_days * SECONDS_PER_DAY


def load_memory(conn: sqlite3.Connection, memory_id: str) -> tuple[int, int, Memory]:
    """(pk, project_pk, memory) of ``memory_id``, disabled ones included."""
    row = conn.execute(
        f"SELECT m.pk, m.project_pk, {MEMORY_COLUMNS} FROM {MEMORY_FROM} WHERE m.id = ?",
        (memory_id,),
    ).fetchone()
    if row is None:
        raise NotFound(f"no memory has the id {echoed(memory_id)}")
    return row[0], row[1], memory_from_row(row[2:])


def _active_twin(conn: sqlite3.Connection, project_pk: int, signature: str) -> str | None:
    row = conn.execute(
        "SELECT id FROM memories WHERE project_pk = ? AND signature = ? AND disabled = 0",
        (project_pk, signature),
    ).fetchone()
    return row[0] if row else None


def _deduplicate(conn: sqlite3.Connection, twin_id: str, actor: str, now: float) -> AddResult:
    pk, project_pk, before = load_memory(conn, twin_id)
    updated_at = next_version(before.updated_at, now)
    conn.execute(
        "UPDATE memories SET updated_at = ?, use_count = use_count + 1, expires_at = ? "
        "WHERE pk = ?",
        (updated_at, expires_at(updated_at, before.ttl_days), pk),
    )
    after = replace(before, updated_at=updated_at, use_count=before.use_count + 1)
    record_audit(
        conn,
        at=now,
        memory_id=twin_id,
        project_pk=project_pk,
        actor=actor,
        action=AuditAction.DEDUPLICATED,
        before={"updated_at": before.updated_at, "use_count": before.use_count},
        after={"updated_at": after.updated_at, "use_count": after.use_count},
    )
    return AddResult(AddStatus.DEDUPLICATED, after)


def _most_similar(
    conn: sqlite3.Connection,
    project_pk: int,
    content: str,
    tokens: frozenset[str],
    rarity: WordRarity,
) -> tuple[int, str] | None:
    """(pk, id) of the active memory most similar to ``content`` above the threshold."""
    best: tuple[float, int, str] | None = None
    table = memory_table(project_pk)
    candidates = near_duplicate_candidates(conn, table, content, len(tokens), rarity)
    for pk, memory_id, other in candidates:
        score = jaccard(tokens, similarity_tokens(other))
        if score > SUPERSEDE_THRESHOLD and (best is None or score > best[0]):
            best = (score, pk, memory_id)
    return None if best is None else (best[1], best[2])


def _insert(
    conn: sqlite3.Connection,
    *,
    project_pk: int,
    project_id: str,
    draft: MemoryDraft,
    signature: str,
    actor: str,
    now: float,
    token_count: int,
    action: AuditAction,
    supersedes: str | None = None,
) -> Memory:
    """Insert a validated draft with its tags, search index row and audit event."""
    memory = Memory(
        id=new_memory_id(now),
        project_id=project_id,
        title=str(draft.title),
        content=draft.content,
        category=draft.category,  # type: ignore[arg-type]  # validated
        importance=draft.importance,
        tags=tuple(draft.tags),
        signature=signature,
        created_at=now,
        updated_at=now,
        last_used_at=None,
        use_count=0,
        ttl_days=draft.ttl_days,
        disabled=False,
        source=actor,
        superseded_by=None,
    )
    cursor = conn.execute(
        "INSERT INTO memories (id, project_pk, title, content, category, importance, tags, "
        "signature, created_at, updated_at, ttl_days, expires_at, source, token_count) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            memory.id,
            project_pk,
            memory.title,
            memory.content,
            memory.category.value,
            memory.importance,
            tags_json(memory.tags),
            signature,
            now,
            now,
            memory.ttl_days,
            expires_at(now, memory.ttl_days),
            actor,
            token_count,
        ),
    )
    pk = int(cursor.lastrowid or 0)
    if memory.tags:
        write_tags(conn, pk, memory.tags)
    index_memory(conn, pk, memory, project_pk)
    after = memory_snapshot(memory)
    if supersedes:
        after["supersedes"] = supersedes
    record_audit(
        conn,
        at=now,
        memory_id=memory.id,
        project_pk=project_pk,
        actor=actor,
        action=action,
        before=None,
        after=after,
    )
    return memory


def add_memory(
    conn: sqlite3.Connection,
    *,
    project_pk: int,
    project_id: str,
    draft: MemoryDraft,
    actor: str,
    now: float,
    rarity: WordRarity,
) -> AddResult:
    """Insert a validated draft, or deduplicate, or supersede its nearest twin."""
    signature = content_signature(draft.content)
    twin = _active_twin(conn, project_pk, signature)
    if twin is not None:
        return _deduplicate(conn, twin, actor, now)
    tokens = similarity_tokens(draft.content)
    similar = _most_similar(conn, project_pk, draft.content, tokens, rarity)
    superseded_id = None if similar is None else similar[1]
    memory = _insert(
        conn,
        project_pk=project_pk,
        project_id=project_id,
        draft=draft,
        signature=signature,
        actor=actor,
        now=now,
        token_count=len(tokens),
        action=AuditAction.CREATED,
        supersedes=superseded_id,
    )
    rarity.add_document(memory_table(project_pk), split_words(draft.content))
    if superseded_id is not None:
        set_disabled(conn, superseded_id, True, actor, now, superseded_by=memory.id)
    status = AddStatus.SUPERSEDED if superseded_id else AddStatus.CREATED
    return AddResult(status, memory, superseded_id)


def import_memory(
    conn: sqlite3.Connection,
    *,
    project_pk: int,
    project_id: str,
    draft: MemoryDraft,
    actor: str,
    now: float,
) -> Memory | None:
    """Insert a validated draft as is (no supersede); None when its text is already there."""
    signature = content_signature(draft.content)
    if _active_twin(conn, project_pk, signature) is not None:
        return None
    return _insert(
        conn,
        project_pk=project_pk,
        project_id=project_id,
        draft=draft,
        signature=signature,
        actor=actor,
        now=now,
        token_count=len(similarity_tokens(draft.content)),
        action=AuditAction.IMPORTED,
    )


def update_memory(
    conn: sqlite3.Connection,
    memory_id: str,
    changes: dict[str, Any],
    actor: str,
    now: float,
    action: AuditAction = AuditAction.UPDATED,
    expected_updated_at: float | None = None,
) -> tuple[Memory, Memory]:
    """Apply validated ``changes``; returns (before, after). No change means no event.

    A memory in the trash is not edited (Conflict ``removed``): restoring it is a
    separate, deliberate write.

    Args:
        expected_updated_at: the ``updated_at`` the caller last saw; if the memory has
            moved on since, StaleEdit is raised and nothing is written.
    """
    pk, project_pk, before = load_memory(conn, memory_id)
    check_version(before, expected_updated_at)
    if before.disabled:
        raise Conflict(
            f"memory {memory_id} is in the trash; restore it before editing it",
            reason="removed",
            current=before,
        )
    after = replace(before, **changes)
    if "content" in changes:
        after = replace(after, signature=content_signature(after.content))
    if after == before:
        return before, before
    if after.signature != before.signature:
        twin = _active_twin(conn, project_pk, after.signature)
        if twin is not None:
            raise Conflict(
                f"another active memory ({twin}) already has this content; "
                "edit that one or change the text",
                other_id=twin,
                reason="duplicate",
                current=before,
            )
    after = replace(after, updated_at=next_version(before.updated_at, now))
    conn.execute(
        "UPDATE memories SET title = ?, content = ?, category = ?, importance = ?, tags = ?, "
        "signature = ?, updated_at = ?, ttl_days = ?, expires_at = ?, token_count = ? "
        "WHERE pk = ?",
        (
            after.title,
            after.content,
            after.category.value,
            after.importance,
            tags_json(after.tags),
            after.signature,
            after.updated_at,
            after.ttl_days,
            expires_at(after.updated_at, after.ttl_days),
            len(similarity_tokens(after.content)),
            pk,
        ),
    )
    if after.tags != before.tags:
        write_tags(conn, pk, after.tags)
    if not after.disabled:
        unindex_memory(conn, pk, project_pk)
        index_memory(conn, pk, after, project_pk)
    old, new = changed_fields(before, after)
    record_audit(
        conn,
        at=now,
        memory_id=memory_id,
        project_pk=project_pk,
        actor=actor,
        action=action,
        before=old,
        after=new,
    )
    return before, after


def set_disabled(
    conn: sqlite3.Connection,
    memory_id: str,
    disabled: bool,
    actor: str,
    now: float,
    *,
    superseded_by: str | None = None,
    action: AuditAction | None = None,
    expected_updated_at: float | None = None,
) -> Memory:
    """Soft-delete (or restore) one memory; restoring refuses to shadow an active twin.

    Args:
        expected_updated_at: as in ``update_memory``: StaleEdit if the memory moved on.
    """
    pk, project_pk, before = load_memory(conn, memory_id)
    check_version(before, expected_updated_at)
    if before.disabled == disabled:
        state = "removed" if disabled else "active"
        raise Conflict(
            f"memory {memory_id} is already {state}",
            reason=f"already_{state}",
            current=before,
        )
    if disabled:
        conn.execute(
            "UPDATE memories SET disabled = 1, disabled_at = ?, superseded_by = ? WHERE pk = ?",
            (now, superseded_by, pk),
        )
        unindex_memory(conn, pk, project_pk)
        after = replace(before, disabled=True, disabled_at=now, superseded_by=superseded_by)
        default_action = AuditAction.SUPERSEDED if superseded_by else AuditAction.REMOVED
    else:
        twin = _active_twin(conn, project_pk, before.signature)
        if twin is not None:
            raise Conflict(
                f"cannot restore {memory_id}: an active memory ({twin}) now has the same "
                "content; remove that one first",
                other_id=twin,
                reason="duplicate",
                current=before,
            )
        # Restoring is asking for the memory back: one whose TTL ran out is renewed.
        expired = before.is_expired(now)
        updated_at = next_version(before.updated_at, now) if expired else before.updated_at
        conn.execute(
            "UPDATE memories SET disabled = 0, disabled_at = NULL, superseded_by = NULL, "
            "updated_at = ?, expires_at = ? WHERE pk = ?",
            (updated_at, expires_at(updated_at, before.ttl_days), pk),
        )
        after = replace(
            before, disabled=False, disabled_at=None, superseded_by=None, updated_at=updated_at
        )
        index_memory(conn, pk, after, project_pk)
        default_action = AuditAction.RESTORED
    old, new = changed_fields(before, after)
    if after.updated_at != before.updated_at:  # a renewing restore: record it
        old["updated_at"], new["updated_at"] = before.updated_at, after.updated_at
    record_audit(
        conn,
        at=now,
        memory_id=memory_id,
        project_pk=project_pk,
        actor=actor,
        action=action or default_action,
        before=old,
        after=new,
    )
    return after


def mark_reviewed(
    conn: sqlite3.Connection,
    memory_id: str,
    actor: str,
    now: float,
    expected_updated_at: float | None = None,
) -> Memory:
    """Record that a person looked at a stale candidate and kept it (StaleEdit if it
    changed since they looked: what they judged is not what is stored)."""
    pk, project_pk, before = load_memory(conn, memory_id)
    check_version(before, expected_updated_at)
    conn.execute("UPDATE memories SET reviewed_at = ? WHERE pk = ?", (now, pk))
    record_audit(
        conn,
        at=now,
        memory_id=memory_id,
        project_pk=project_pk,
        actor=actor,
        action=AuditAction.REVIEWED,
        before={"reviewed_at": before.reviewed_at},
        after={"reviewed_at": now},
    )
    return replace(before, reviewed_at=now)


def expired_ids(conn: sqlite3.Connection, project_pk: int | None, now: float) -> list[str]:
    sql = (
        "SELECT id FROM memories WHERE disabled = 0 AND expires_at IS NOT NULL AND expires_at <= ?"
    )
    params: tuple[Any, ...] = (now,)
    if project_pk is not None:
        sql += " AND project_pk = ?"
        params = (now, project_pk)
    return [row[0] for row in conn.execute(sql, params)]


def reinforce(conn: sqlite3.Connection, uses: dict[str, tuple[int, float]]) -> None:
    """Count uses of memories (not an audit event: it is not a change of content)."""
    conn.executemany(
        "UPDATE memories SET use_count = use_count + ?, "
        "last_used_at = max(coalesce(last_used_at, 0), ?) WHERE id = ?",
        [(count, at, memory_id) for memory_id, (count, at) in uses.items()],
    )

"""The append-only audit history: one row per change, with who, what and before/after."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from ltm_desktop.core.records import AuditAction
from ltm_desktop.store.audit.chain import next_link


def record_audit(
    conn: sqlite3.Connection,
    *,
    at: float,
    memory_id: str,
    project_pk: int,
    actor: str,
    action: AuditAction,
    before: dict[str, Any] | None,
    after: dict[str, Any] | None,
) -> None:
    """Append one event, linked to the one before (``audit_chain``)."""
    old = json.dumps(before, ensure_ascii=False) if before is not None else None
    new = json.dumps(after, ensure_ascii=False) if after is not None else None
    link = next_link(conn, at, memory_id, project_pk, actor, action.value, old, new)
    conn.execute(
        "INSERT INTO audit (seq, at, memory_id, project_pk, actor, action, before, after, "
        "nonce, content_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            link.seq,
            at,
            memory_id,
            project_pk,
            actor,
            action.value,
            old,
            new,
            link.nonce,
            link.content_hash,
            link.hash,
        ),
    )

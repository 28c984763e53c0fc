"""The append-only audit history: one row per change, with who, what and before/after."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from ltm_desktop.core.records import AuditAction


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
    conn.execute(
        "INSERT INTO audit (at, memory_id, project_pk, actor, action, before, after) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            at,
            memory_id,
            project_pk,
            actor,
            action.value,
            json.dumps(before, ensure_ascii=False) if before is not None else None,
            json.dumps(after, ensure_ascii=False) if after is not None else None,
        ),
    )

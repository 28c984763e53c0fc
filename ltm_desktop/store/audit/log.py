"""The append-only audit history: one row per change, with who, what and before/after."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

from ltm_desktop.core.backend import AuditEntry
from ltm_desktop.store.audit.chain import head, link_after

_INSERT = (
    "INSERT INTO audit (seq, at, memory_id, project_pk, actor, action, before, after, "
    "nonce, content_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


def record_audits(conn: sqlite3.Connection, events: Sequence[tuple[int, AuditEntry]]) -> None:
    """Append (scope pk, event) pairs in order, each event linked to the one before it:
    the head is read once and the rows go in with one statement (an import's thousands
    of events)."""
    if not events:
        return
    last = head(conn)
    rows = []
    for project_pk, event in events:
        old = json.dumps(event.before, ensure_ascii=False) if event.before is not None else None
        new = json.dumps(event.after, ensure_ascii=False) if event.after is not None else None
        action = event.action.value
        link = link_after(
            last, event.at, event.memory_id, project_pk, event.actor, action, old, new
        )
        rows.append(
            (
                link.seq,
                event.at,
                event.memory_id,
                project_pk,
                event.actor,
                action,
                old,
                new,
                link.nonce,
                link.content_hash,
                link.hash,
            )
        )
        last = (link.seq, link.hash)
    conn.executemany(_INSERT, rows)

"""The append-only audit history: one row per change, with who (agent, person, machine),
what and before/after."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import replace

from ltm_desktop.core.backend import AuditEntry
from ltm_desktop.engine.audit_compact import compact
from ltm_desktop.engine.audit_log import COLUMNS, WIDTH, chained_rows
from ltm_desktop.store.audit.chain import head

_INSERT = f"INSERT INTO audit ({COLUMNS}) VALUES ({', '.join('?' * WIDTH)})"


def record_audits(conn: sqlite3.Connection, events: Sequence[tuple[int, AuditEntry]]) -> None:
    """Append (scope pk, event) pairs in order, each event linked to the one before it:
    the head is read once and the rows go in with one statement (an import's thousands
    of events). The rows are the engines' shared ones (``engine.audit_log``), each
    ``after`` without the values the event's own columns say (``engine.audit_compact``:
    a third of an imported memory's event)."""
    if not events:
        return
    shorter = [(pk, _compacted(event)) for pk, event in events]
    conn.executemany(_INSERT, chained_rows(head(conn), shorter))


def _compacted(event: AuditEntry) -> AuditEntry:
    after = compact(event.after, event.memory_id, event.project_id, event.at, event.actor)
    return event if after is event.after else replace(event, after=after)

"""The append-only audit history: one row per change, with who (agent, person, machine),
what and before/after."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from ltm_desktop.core.backend import AuditEntry
from ltm_desktop.engine.audit_log import COLUMNS, WIDTH, chained_rows
from ltm_desktop.store.audit.chain import head

_INSERT = f"INSERT INTO audit ({COLUMNS}) VALUES ({', '.join('?' * WIDTH)})"


def record_audits(conn: sqlite3.Connection, events: Sequence[tuple[int, AuditEntry]]) -> None:
    """Append (scope pk, event) pairs in order, each event linked to the one before it:
    the head is read once and the rows go in with one statement (an import's thousands
    of events). The rows are the engines' shared ones (``engine.audit_log``)."""
    if not events:
        return
    conn.executemany(_INSERT, chained_rows(head(conn), events))

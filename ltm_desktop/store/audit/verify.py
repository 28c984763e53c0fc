"""What ``ltm-desktop verify`` asks of SQLite on a reader: the file's integrity, the
append-only triggers, the audit chain and its anchor outside the database
(``chain_anchor``), and the JSON columns of every memory (which reads tolerate, so only
this check tells). The search indexes are checked on the writer
(``search_integrity``: FTS5's own check is a write statement).

``FrozenHistory`` serves ``core.verifying``'s replay from a bare connection, so that a
backup (of any schema version, opened immutable) is replayed by the same code as
``verify`` before it is restored."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from ltm_desktop.core.backend import Verification
from ltm_desktop.core.records import AuditEvent, Memory
from ltm_desktop.engine.verifying import QUICK_EVENTS, json_problems
from ltm_desktop.store.audit import anchor as chain_anchor
from ltm_desktop.store.audit import chain as audit_chain
from ltm_desktop.store.memory_reads import IDS_PER_QUERY, events_after
from ltm_desktop.store.rows import AUDIT_COLUMNS, MEMORY_COLUMNS, MEMORY_FROM, memory_from_row


def _normal(sql: str) -> str:
    return re.sub(r"\s+", " ", sql).strip()


def _triggers(conn: sqlite3.Connection) -> list[str]:
    found = dict(conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'"))
    problems = []
    for name, sql in audit_chain.TRIGGERS.items():
        if name not in found:
            problems.append(f"the trigger {name} is missing: the audit history can be rewritten")
        elif _normal(found[name]) != _normal(sql):
            problems.append(f"the trigger {name} was changed")
    return problems


def _not_list_of_text(column: str) -> str:
    valid = f"CASE WHEN json_valid({column}) THEN {column} ELSE '[]' END"
    return (
        f"(CASE WHEN json_valid({column}) THEN json_type({column}) END) IS NOT 'array' OR "
        f"EXISTS (SELECT 1 FROM json_each({valid}) WHERE type != 'text')"
    )


# The rows whose JSON columns may not decode: SQLite's JSON functions sort out the lists
# in C (Python decoding every row took about 1 s per 100,000 memories); a provenance,
# which few memories have, is left to the decoder itself.
_SUSPECT = (
    "SELECT id, tags, files, provenance FROM memories WHERE provenance IS NOT NULL OR "
    f"{_not_list_of_text('tags')} OR {_not_list_of_text('files')} ORDER BY id"
)


def _json_columns(conn: sqlite3.Connection) -> list[str]:
    """The memories whose tags, files or provenance do not decode (read as empty)."""
    try:
        rows = conn.execute(_SUSPECT)
    except sqlite3.OperationalError:  # an SQLite without JSON functions: every row
        rows = conn.execute("SELECT id, tags, files, provenance FROM memories ORDER BY id")
    return json_problems(rows)


def verify(conn: sqlite3.Connection, quick: bool, anchor: Path | None = None) -> Verification:
    """The checks, quick (the newest events of the chain, no JSON columns) or whole;
    ``anchor``: the file the chain's head is anchored in, compared with it as it is now."""
    check = "quick_check" if quick else "integrity_check"
    result = [row[0] for row in conn.execute(f"PRAGMA {check}")]
    problems = [] if result == ["ok"] else [f"SQLite's {check}: " + "; ".join(result[:5])]
    problems += _triggers(conn)
    broken, head = audit_chain.check_chain(conn, QUICK_EVENTS if quick else None)
    if broken is not None:
        problems.append(broken.describe())
    mismatch = None if anchor is None else chain_anchor.check(conn, anchor)
    if mismatch is not None:
        problems.append(mismatch)
    if not quick:
        problems += _json_columns(conn)
    events = int(conn.execute("SELECT count(*) FROM audit").fetchone()[0])
    return Verification(tuple(problems), head, events, quick)


# What a column added by a later migration reads as in a file from before it (its
# migration's default): the replay compares none of them, but a Memory needs a value.
_ADDED_LATER = {"review_state": "NULL", "provenance": "NULL", "use_heat": "0", "files": "'[]'"}


class FrozenHistory:
    """The audit history and the memories behind ``conn`` as ``core.verifying.History``,
    read with plain SELECTs only (the connection may be immutable); a file of an older
    schema version reads its missing columns as their migrations' defaults."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        present = {row[1] for row in conn.execute("PRAGMA table_info(memories)")}
        columns = [column.strip() for column in MEMORY_COLUMNS.split(",")]
        self._columns = ", ".join(
            column
            if not column.startswith("m.") or column[2:] in present
            else _ADDED_LATER[column[2:]]
            for column in columns
        )
        audited = {row[1] for row in conn.execute("PRAGMA table_info(audit)")}
        self._audit_columns = ", ".join(
            column if not column.startswith("a.") or column[2:] in audited else "NULL"
            for column in (column.strip() for column in AUDIT_COLUMNS.split(","))
        )

    def events_after(self, seq: int, limit: int) -> list[AuditEvent]:
        return events_after(self._conn, seq, limit, self._audit_columns)

    def get_memories(self, memory_ids: Sequence[str]) -> list[Memory]:
        found: list[Memory] = []
        ids = list(memory_ids)
        for start in range(0, len(ids), IDS_PER_QUERY):
            chunk = ids[start : start + IDS_PER_QUERY]
            rows = self._conn.execute(
                f"SELECT {self._columns} FROM {MEMORY_FROM} "
                f"WHERE m.id IN ({','.join('?' * len(chunk))})",
                chunk,
            )
            found += [memory_from_row(row) for row in rows]
        return found

"""Proposals, unreviewed memories and extraction runs: stored and found, never decided on.

Statements that write run inside a transaction the caller opened and never commit.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from ltm_desktop.core.errors import NotFound, echoed
from ltm_desktop.core.inbox.proposals import (
    ExtractionRun,
    Proposal,
)
from ltm_desktop.core.records import Memory
from ltm_desktop.engine.inbox_rows import (
    PROPOSAL_COLUMNS,
    PROPOSAL_FIELDS,
    PROPOSAL_FROM,
    RUN_COLUMNS,
    RUN_FROM,
    proposal_from_row,
    run_from_row,
    run_values,
    stored_proposal_field,
)
from ltm_desktop.store.rows import (
    MEMORY_COLUMNS,
    MEMORY_FROM,
    memory_from_row,
)

_NOT_EXPIRED = "(m.expires_at IS NULL OR m.expires_at > ?)"


def load_proposal(conn: sqlite3.Connection, proposal_id: str) -> tuple[int, Proposal]:
    row = conn.execute(
        f"SELECT x.pk, {PROPOSAL_COLUMNS} FROM {PROPOSAL_FROM} WHERE x.id = ?", (proposal_id,)
    ).fetchone()
    if row is None:
        raise NotFound(f"no proposal has the id {echoed(proposal_id)}")
    return int(row[0]), proposal_from_row(row[1:])


def pending_with_signature(
    conn: sqlite3.Connection, project_pk: int, signature: str
) -> Proposal | None:
    row = conn.execute(
        f"SELECT {PROPOSAL_COLUMNS} FROM {PROPOSAL_FROM} WHERE x.project_pk = ? "
        "AND x.signature = ? AND x.state = 'proposed' LIMIT 1",
        (project_pk, signature),
    ).fetchone()
    return None if row is None else proposal_from_row(row)


def insert_proposal(conn: sqlite3.Connection, project_pk: int, proposal: Proposal) -> None:
    names = ("id", "project_pk", *PROPOSAL_FIELDS)
    values = [proposal.id, project_pk]
    values += [stored_proposal_field(name, getattr(proposal, name)) for name in PROPOSAL_FIELDS]
    conn.execute(
        f"INSERT INTO proposals ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
        values,
    )


def save_proposal(conn: sqlite3.Connection, before: Proposal, after: Proposal) -> None:
    """Write the fields that differ (``id`` and the scope never change)."""
    if (after.id, after.project_id) != (before.id, before.project_id):
        raise ValueError(f"a proposal keeps its id and scope ({before.id})")
    changed = {
        name: stored_proposal_field(name, getattr(after, name))
        for name in PROPOSAL_FIELDS
        if getattr(after, name) != getattr(before, name)
    }
    if changed:
        columns = ", ".join(f"{name} = ?" for name in changed)
        conn.execute(f"UPDATE proposals SET {columns} WHERE id = ?", (*changed.values(), before.id))


def merge_proposals(conn: sqlite3.Connection, project_pk: int, state: str) -> list[Proposal]:
    """The scope's merge proposals in ``state``, newest first."""
    rows = conn.execute(
        f"SELECT {PROPOSAL_COLUMNS} FROM {PROPOSAL_FROM} WHERE x.state = ? "
        "AND x.project_pk = ? AND x.merges <> '[]' ORDER BY x.created_at DESC, x.pk DESC",
        (state, project_pk),
    ).fetchall()
    return [proposal_from_row(row) for row in rows]


def _scope(column: str, project_pk: int | None) -> tuple[str, list[Any]]:
    return ("", []) if project_pk is None else (f" AND {column} = ?", [project_pk])


def list_proposals(
    conn: sqlite3.Connection, project_pk: int | None, state: str, limit: int, offset: int
) -> list[Proposal]:
    """Newest first."""
    where, params = _scope("x.project_pk", project_pk)
    rows = conn.execute(
        f"SELECT {PROPOSAL_COLUMNS} FROM {PROPOSAL_FROM} WHERE x.state = ?{where} "
        "ORDER BY x.created_at DESC, x.pk DESC LIMIT ? OFFSET ?",
        (state, *params, limit, offset),
    ).fetchall()
    return [proposal_from_row(row) for row in rows]


def list_unreviewed(
    conn: sqlite3.Connection, project_pk: int | None, limit: int, offset: int, now: float
) -> list[Memory]:
    """Active, unexpired memories still marked unreviewed, newest first."""
    where, params = _scope("m.project_pk", project_pk)
    rows = conn.execute(
        f"SELECT {MEMORY_COLUMNS} FROM {MEMORY_FROM} WHERE m.review_state IS NOT NULL "
        f"AND m.disabled = 0 AND {_NOT_EXPIRED}{where} "
        "ORDER BY m.created_at DESC, m.pk DESC LIMIT ? OFFSET ?",
        (now, *params, limit, offset),
    ).fetchall()
    return [memory_from_row(row) for row in rows]


def inbox_counts(conn: sqlite3.Connection, now: float) -> dict[str, int]:
    """Items waiting per scope: pending proposals plus live unreviewed memories."""
    rows = conn.execute(
        "SELECT p.project_id, count(*) FROM proposals AS x JOIN projects AS p "
        "ON p.pk = x.project_pk WHERE x.state = 'proposed' GROUP BY p.project_id "
        "UNION ALL "
        # the planner took the (project, disabled) index and read every active memory
        # (45 ms at 60,000, on every write the app hears); the partial index holds only these
        "SELECT p.project_id, count(*) FROM memories AS m INDEXED BY memories_unreviewed "
        "JOIN projects AS p "
        "ON p.pk = m.project_pk WHERE m.review_state IS NOT NULL AND m.disabled = 0 "
        f"AND {_NOT_EXPIRED} GROUP BY p.project_id",
        (now,),
    ).fetchall()
    counts: dict[str, int] = {}
    for project_id, count in rows:
        counts[project_id] = counts.get(project_id, 0) + int(count)
    return counts


def insert_run(conn: sqlite3.Connection, project_pk: int, run: ExtractionRun) -> None:
    names, values = run_values(project_pk, run)
    conn.execute(
        f"INSERT INTO extraction_runs ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
        values,
    )


def list_runs(conn: sqlite3.Connection, project_pk: int | None, limit: int) -> list[ExtractionRun]:
    """Newest first."""
    where, params = _scope("r.project_pk", project_pk)
    rows = conn.execute(
        f"SELECT {RUN_COLUMNS} FROM {RUN_FROM} WHERE 1{where} "
        "ORDER BY r.started_at DESC, r.pk DESC LIMIT ?",
        (*params, limit),
    ).fetchall()
    return [run_from_row(row) for row in rows]

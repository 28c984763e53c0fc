"""Proposals, unreviewed memories and extraction runs on PostgreSQL: stored and found,
never decided on (``store.inbox``'s statements, with the same columns and encodings).

Statements that write run inside a transaction the caller opened and never commit.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ltm_desktop.core.errors import NotFound, echoed
from ltm_desktop.core.inbox.proposals import (
    ExtractionRun,
    MergeMember,
    Proposal,
    ProposalState,
    RunStatus,
)
from ltm_desktop.core.records import Category, Memory, Provenance
from ltm_desktop.engine.rows import (
    memory_from_row,
    provenance_from_json,
    provenance_json,
    tags_json,
)
from ltm_desktop.postgres.conn import Conn
from ltm_desktop.postgres.rows import MEMORY_COLUMNS, MEMORY_FROM

Row = Sequence[Any]

PROPOSAL_FIELDS = (
    "title",
    "content",
    "category",
    "importance",
    "tags",
    "ttl_days",
    "signature",
    "source",
    "provenance",
    "state",
    "created_at",
    "updated_at",
    "decided_at",
    "decided_by",
    "memory_id",
    "outcome",
    "memory_version",
    "superseded_id",
    "merges",
    "files",
)
PROPOSAL_COLUMNS = "x.id, p.project_id, " + ", ".join(f"x.{name}" for name in PROPOSAL_FIELDS)
PROPOSAL_FROM = "proposals AS x JOIN projects AS p ON p.pk = x.project_pk"
RUN_FIELDS = (
    "started_at",
    "finished_at",
    "agent",
    "session_id",
    "source",
    "model",
    "status",
    "reason",
    "added",
    "proposed",
    "duplicates",
    "invalid",
    "refused",
    "item_ids",
)
RUN_COLUMNS = "r.id, p.project_id, " + ", ".join(f"r.{name}" for name in RUN_FIELDS)
RUN_FROM = "extraction_runs AS r JOIN projects AS p ON p.pk = r.project_pk"
_NOT_EXPIRED = "(m.expires_at IS NULL OR m.expires_at > %s)"


def _marks(count: int) -> str:
    return ", ".join(["%s"] * count)


def _stored(name: str, value: Any) -> Any:
    """A proposal field as its column holds it."""
    if name == "category" or name == "state":
        return value.value
    if name == "tags":
        return tags_json(value)
    if name == "provenance":
        return provenance_json(value)
    if name == "merges":
        return json.dumps([[member.memory_id, member.version] for member in value])
    if name == "files":
        return json.dumps(list(value))
    return value


def _merges(text: str) -> tuple[MergeMember, ...]:
    """A merge's members as the column holds them (none when it is not valid JSON: the
    proposal then reads as a plain one, and approving it supersedes nothing)."""
    try:
        pairs = json.loads(text)
        return tuple(MergeMember(str(memory_id), float(version)) for memory_id, version in pairs)
    except (ValueError, TypeError):
        return ()


def _files(text: str) -> tuple[str, ...]:
    try:
        files = json.loads(text)
    except ValueError:
        return ()
    return tuple(f for f in files if isinstance(f, str)) if isinstance(files, list) else ()


def proposal_from_row(row: Row) -> Proposal:
    v = dict(zip(PROPOSAL_FIELDS, row[2:], strict=True))
    return Proposal(
        id=row[0],
        project_id=row[1],
        title=v["title"],
        content=v["content"],
        category=Category(v["category"]),
        importance=v["importance"],
        tags=tuple(json.loads(v["tags"])),
        ttl_days=v["ttl_days"],
        signature=v["signature"],
        source=v["source"],
        provenance=provenance_from_json(v["provenance"]) or Provenance("", "", "", "", "", 0.0),
        state=ProposalState(v["state"]),
        created_at=v["created_at"],
        updated_at=v["updated_at"],
        decided_at=v["decided_at"],
        decided_by=v["decided_by"],
        memory_id=v["memory_id"],
        outcome=v["outcome"],
        memory_version=v["memory_version"],
        superseded_id=v["superseded_id"],
        merges=_merges(v["merges"]),
        files=_files(v["files"]),
    )


def load_proposal(conn: Conn, proposal_id: str) -> tuple[int, Proposal]:
    """(pk, proposal), whatever its state; NotFound for an unknown id."""
    row = conn.execute(
        f"SELECT x.pk, {PROPOSAL_COLUMNS} FROM {PROPOSAL_FROM} WHERE x.id = %s", (proposal_id,)
    ).fetchone()
    if row is None:
        raise NotFound(f"no proposal has the id {echoed(proposal_id)}")
    return int(row[0]), proposal_from_row(row[1:])


def pending_with_signature(conn: Conn, project_pk: int, signature: str) -> Proposal | None:
    row = conn.execute(
        f"SELECT {PROPOSAL_COLUMNS} FROM {PROPOSAL_FROM} WHERE x.project_pk = %s "
        "AND x.signature = %s AND x.state = 'proposed' ORDER BY x.pk LIMIT 1",
        (project_pk, signature),
    ).fetchone()
    return None if row is None else proposal_from_row(row)


def insert_proposal(conn: Conn, project_pk: int, proposal: Proposal) -> None:
    names = ("id", "project_pk", *PROPOSAL_FIELDS)
    values: list[Any] = [proposal.id, project_pk]
    values += [_stored(name, getattr(proposal, name)) for name in PROPOSAL_FIELDS]
    conn.execute(
        f"INSERT INTO proposals ({', '.join(names)}) VALUES ({_marks(len(names))})", values
    )


def save_proposal(conn: Conn, before: Proposal, after: Proposal) -> None:
    """Write the fields that differ (``id`` and the scope never change)."""
    if (after.id, after.project_id) != (before.id, before.project_id):
        raise ValueError(f"a proposal keeps its id and scope ({before.id})")
    changed = {
        name: _stored(name, getattr(after, name))
        for name in PROPOSAL_FIELDS
        if getattr(after, name) != getattr(before, name)
    }
    if changed:
        columns = ", ".join(f"{name} = %s" for name in changed)
        conn.execute(
            f"UPDATE proposals SET {columns} WHERE id = %s", (*changed.values(), before.id)
        )


def merge_proposals(conn: Conn, project_pk: int, state: str) -> list[Proposal]:
    """The scope's merge proposals in ``state``, newest first."""
    rows = conn.execute(
        f"SELECT {PROPOSAL_COLUMNS} FROM {PROPOSAL_FROM} WHERE x.state = %s "
        "AND x.project_pk = %s AND x.merges <> '[]' ORDER BY x.created_at DESC, x.pk DESC",
        (state, project_pk),
    ).fetchall()
    return [proposal_from_row(row) for row in rows]


def _scope(column: str, project_pk: int | None) -> tuple[str, list[Any]]:
    return ("", []) if project_pk is None else (f" AND {column} = %s", [project_pk])


def list_proposals(
    conn: Conn, project_pk: int | None, state: str, limit: int, offset: int
) -> list[Proposal]:
    """Newest first."""
    where, params = _scope("x.project_pk", project_pk)
    rows = conn.execute(
        f"SELECT {PROPOSAL_COLUMNS} FROM {PROPOSAL_FROM} WHERE x.state = %s{where} "
        "ORDER BY x.created_at DESC, x.pk DESC LIMIT %s OFFSET %s",
        (state, *params, limit, offset),
    ).fetchall()
    return [proposal_from_row(row) for row in rows]


def list_unreviewed(
    conn: Conn, project_pk: int | None, limit: int, offset: int, now: float
) -> list[Memory]:
    """Active, unexpired memories still marked unreviewed, newest first."""
    where, params = _scope("m.project_pk", project_pk)
    rows = conn.execute(
        f"SELECT {MEMORY_COLUMNS} FROM {MEMORY_FROM} WHERE m.review_state IS NOT NULL "
        f"AND m.disabled = 0 AND {_NOT_EXPIRED}{where} "
        "ORDER BY m.created_at DESC, m.pk DESC LIMIT %s OFFSET %s",
        (now, *params, limit, offset),
    ).fetchall()
    return [memory_from_row(row) for row in rows]


def inbox_counts(conn: Conn, now: float) -> dict[str, int]:
    """Items waiting per scope: pending proposals plus live unreviewed memories (the
    memories through the partial index ``memories_unreviewed``, whose condition the
    query repeats)."""
    rows = conn.execute(
        "SELECT p.project_id, count(*) FROM proposals AS x JOIN projects AS p "
        "ON p.pk = x.project_pk WHERE x.state = 'proposed' GROUP BY p.project_id "
        "UNION ALL "
        "SELECT p.project_id, count(*) FROM memories AS m JOIN projects AS p "
        "ON p.pk = m.project_pk WHERE m.review_state IS NOT NULL AND m.disabled = 0 "
        f"AND {_NOT_EXPIRED} GROUP BY p.project_id",
        (now,),
    ).fetchall()
    counts: dict[str, int] = {}
    for project_id, count in rows:
        counts[project_id] = counts.get(project_id, 0) + int(count)
    return counts


def run_from_row(row: Row) -> ExtractionRun:
    v = dict(zip(RUN_FIELDS, row[2:], strict=True))
    return ExtractionRun(
        id=row[0],
        project_id=row[1],
        started_at=v["started_at"],
        finished_at=v["finished_at"],
        agent=v["agent"],
        session_id=v["session_id"],
        source=v["source"],
        model=v["model"],
        status=RunStatus(v["status"]),
        reason=v["reason"],
        added=v["added"],
        proposed=v["proposed"],
        duplicates=v["duplicates"],
        invalid=v["invalid"],
        refused=v["refused"],
        item_ids=tuple(json.loads(v["item_ids"])),
    )


def insert_run(conn: Conn, project_pk: int, run: ExtractionRun) -> None:
    names = ("id", "project_pk", *RUN_FIELDS)
    values: list[Any] = [run.id, project_pk]
    for name in RUN_FIELDS:
        value = getattr(run, name)
        if name == "status":
            value = value.value
        elif name == "item_ids":
            value = json.dumps(list(value))
        values.append(value)
    conn.execute(
        f"INSERT INTO extraction_runs ({', '.join(names)}) VALUES ({_marks(len(names))})", values
    )


def list_runs(conn: Conn, project_pk: int | None, limit: int) -> list[ExtractionRun]:
    """Newest first."""
    where, params = _scope("r.project_pk", project_pk)
    rows = conn.execute(
        f"SELECT {RUN_COLUMNS} FROM {RUN_FROM} WHERE true{where} "
        "ORDER BY r.started_at DESC, r.pk DESC LIMIT %s",
        (*params, limit),
    ).fetchall()
    return [run_from_row(row) for row in rows]

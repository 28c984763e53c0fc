"""Mapping between SQLite rows and core records."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from ltm_desktop.core.records import (
    GUI_ACTOR,
    AuditAction,
    AuditEvent,
    Category,
    Memory,
    Observation,
    ObservationKind,
    Provenance,
    ReviewState,
)

MEMORY_COLUMNS = (
    "m.id, p.project_id, m.title, m.content, m.category, m.importance, m.tags, m.signature, "
    "m.created_at, m.updated_at, m.last_used_at, m.use_count, m.ttl_days, m.disabled, "
    "m.source, m.superseded_by, m.disabled_at, m.reviewed_at, m.review_state, m.provenance,"
    " m.use_heat, m.files"
)
MEMORY_FROM = "memories AS m JOIN projects AS p ON p.pk = m.project_pk"

OBSERVATION_COLUMNS = (
    "o.id, p.project_id, o.session_id, o.kind, o.title, o.narrative, o.created_at, o.source, "
    "o.disabled"
)
OBSERVATION_FROM = "observations AS o JOIN projects AS p ON p.pk = o.project_pk"

AUDIT_COLUMNS = "a.seq, a.at, a.memory_id, p.project_id, a.actor, a.action, a.before, a.after"
AUDIT_FROM = "audit AS a JOIN projects AS p ON p.pk = a.project_pk"


def narrowing(
    alias: str, category: str | None, tag: str | None, new_since: float | None
) -> tuple[list[str], list[Any]]:
    """SQL conditions on the memories row ``alias`` shared by the list and the search:
    its category, a tag, and "New" (created by an agent, not the app, after ``new_since``)."""
    clauses: list[str] = []
    params: list[Any] = []
    if category is not None:
        clauses.append(f"{alias}.category = ?")
        params.append(category)
    if tag is not None:
        clauses.append(f"{alias}.pk IN (SELECT memory_pk FROM memory_tags WHERE tag = ?)")
        params.append(tag)
    if new_since is not None:
        clauses.append(f"{alias}.created_at > ? AND {alias}.source != ?")
        params += [new_since, GUI_ACTOR]
    return clauses, params


def memory_from_row(row: sqlite3.Row | tuple[Any, ...]) -> Memory:
    return Memory(
        id=row[0],
        project_id=row[1],
        title=row[2],
        content=row[3],
        category=Category(row[4]),
        importance=row[5],
        tags=tuple(json.loads(row[6])),
        signature=row[7],
        created_at=row[8],
        updated_at=row[9],
        last_used_at=row[10],
        use_count=row[11],
        ttl_days=row[12],
        disabled=bool(row[13]),
        source=row[14],
        superseded_by=row[15],
        disabled_at=row[16],
        reviewed_at=row[17],
        review_state=None if row[18] is None else ReviewState(row[18]),
        provenance=provenance_from_json(row[19]),
        use_heat=row[20],
        files=tuple(json.loads(row[21])),
    )


def provenance_json(provenance: Provenance | None) -> str | None:
    return None if provenance is None else json.dumps(provenance.as_dict(), ensure_ascii=False)


def provenance_from_json(text: str | None) -> Provenance | None:
    return None if text is None else Provenance.from_dict(json.loads(text))


def observation_from_row(row: sqlite3.Row | tuple[Any, ...]) -> Observation:
    return Observation(
        id=row[0],
        project_id=row[1],
        session_id=row[2],
        kind=ObservationKind(row[3]),
        title=row[4],
        narrative=row[5],
        created_at=row[6],
        source=row[7],
        disabled=bool(row[8]),
    )


def audit_from_row(row: sqlite3.Row | tuple[Any, ...]) -> AuditEvent:
    return AuditEvent(
        seq=row[0],
        at=row[1],
        memory_id=row[2],
        project_id=row[3],
        actor=row[4],
        action=AuditAction(row[5]),
        before=json.loads(row[6]) if row[6] else None,
        after=json.loads(row[7]) if row[7] else None,
    )


def tags_json(tags: tuple[str, ...] | list[str]) -> str:
    return json.dumps(list(tags), ensure_ascii=False)

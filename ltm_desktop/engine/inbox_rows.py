"""Proposals and extraction runs as both engines store them: their columns, and rows
decoded into the inbox's records (records encoded into column values).

Decoding never raises on a JSON column, as ``engine.rows`` does for memories.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ltm_desktop.core.inbox.proposals import (
    ExtractionRun,
    MergeMember,
    Proposal,
    ProposalState,
    RunStatus,
)
from ltm_desktop.core.records import Category, Provenance
from ltm_desktop.engine.rows import provenance_from_json, provenance_json, tags_json

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


def stored_proposal_field(name: str, value: Any) -> Any:
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


def run_values(project_pk: int, run: ExtractionRun) -> tuple[tuple[str, ...], list[Any]]:
    """(column names, values) of a new run's row."""
    names = ("id", "project_pk", *RUN_FIELDS)
    values: list[Any] = [run.id, project_pk]
    for name in RUN_FIELDS:
        value = getattr(run, name)
        if name == "status":
            value = value.value
        elif name == "item_ids":
            value = json.dumps(list(value))
        values.append(value)
    return names, values

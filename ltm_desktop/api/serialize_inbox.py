"""The review inbox's records as JSON (``api.serialize`` has the memory's)."""

from __future__ import annotations

from ltm_desktop.api.serialize import iso, memory, provenance
from ltm_desktop.api.shapes import (
    DecisionShape,
    ExtractStartedShape,
    InboxItemShape,
    ProposalShape,
    RunShape,
)
from ltm_desktop.core.inbox.proposals import Decision, ExtractionRun, InboxEntry, Proposal


def proposal(p: Proposal) -> ProposalShape:
    return {
        "id": p.id,
        "project_id": p.project_id,
        "title": p.title,
        "content": p.content,
        "category": p.category.value,
        "importance": p.importance,
        "tags": list(p.tags),
        "ttl_days": p.ttl_days,
        "source": p.source,
        "provenance": provenance(p.provenance),
        "state": p.state.value,
        "created_at": iso(p.created_at),
        "updated_at": iso(p.updated_at),
        "decided_at": iso(p.decided_at),
        "decided_by": p.decided_by,
        "memory_id": p.memory_id,
        "outcome": p.outcome,
        "merges": [m.memory_id for m in p.merges],
    }


def inbox_item(e: InboxEntry) -> InboxItemShape:
    out: InboxItemShape = {"kind": e.kind, "similar": None}
    if e.proposal is not None:
        out["proposal"] = proposal(e.proposal)
    if e.memory is not None:
        out["memory"] = memory(e.memory)
    if e.members:
        out["members"] = [memory(m) for m in e.members]
    if e.similar is not None:
        out["similar"] = {"memory": memory(e.similar), "similarity": round(e.similarity, 3)}
    return out


def decision(d: Decision) -> DecisionShape:
    out: DecisionShape = {
        "id": d.item_id,
        "kind": d.kind,
        "title": d.title,
        "updated_at": iso(d.version),
    }
    if d.status is not None:
        out["status"] = d.status
    if d.proposal is not None:
        out["proposal"] = proposal(d.proposal)
    if d.memory is not None:
        out["memory"] = memory(d.memory)
    return out


def run(r: ExtractionRun) -> RunShape:
    return {
        "id": r.id,
        "project_id": r.project_id,
        "started_at": iso(r.started_at),
        "finished_at": iso(r.finished_at),
        "agent": r.agent,
        "session_id": r.session_id,
        "source": r.source,
        "model": r.model,
        "status": r.status.value,
        "reason": r.reason,
        "added": r.added,
        "proposed": r.proposed,
        "duplicates": r.duplicates,
        "invalid": r.invalid,
        "refused": r.refused,
        "item_ids": list(r.item_ids),
        "summary": r.summary(),
    }


def extract_started(run_id: str | None, reason: str | None = None) -> ExtractStartedShape:
    return {"started": run_id is not None, "run_id": run_id, "reason": reason}

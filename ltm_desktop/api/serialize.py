"""Records as JSON: every field, timestamps as ISO 8601 UTC strings."""

from __future__ import annotations

import math
import time
from typing import Any

from ltm_desktop.core.forgetting import ForgetResult
from ltm_desktop.core.records import (
    AddResult,
    AuditEvent,
    Memory,
    Observation,
    PrecisInfo,
    PrecisProblem,
    Project,
    RecallHit,
    ScopeStats,
    SearchHit,
)


def iso(timestamp: float | None) -> str | None:
    """``2026-11-30T15:02:04.123Z`` (millisecond precision), or None."""
    if timestamp is None:
        return None
    fraction, whole = math.modf(timestamp)  # rounds like datetime.fromtimestamp
    micros = round(fraction * 1_000_000)
    if micros >= 1_000_000:
        whole, micros = whole + 1, micros - 1_000_000
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole)) + f".{micros // 1000:03d}Z"


def memory(m: Memory) -> dict[str, Any]:
    return {
        "id": m.id,
        "project_id": m.project_id,
        "title": m.title,
        "content": m.content,
        "category": m.category.value,
        "importance": m.importance,
        "tags": list(m.tags),
        "created_at": iso(m.created_at),
        "updated_at": iso(m.updated_at),
        "last_used_at": iso(m.last_used_at),
        "use_count": m.use_count,
        "ttl_days": m.ttl_days,
        "disabled": m.disabled,
        "source": m.source,
        "superseded_by": m.superseded_by,
    }


def observation(o: Observation) -> dict[str, Any]:
    return {
        "id": o.id,
        "project_id": o.project_id,
        "session_id": o.session_id,
        "kind": o.kind.value,
        "title": o.title,
        "narrative": o.narrative,
        "created_at": iso(o.created_at),
        "source": o.source,
    }


def project(p: Project, counts: dict[str, int] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"project_id": p.project_id, "path": p.path, "name": p.name}
    if counts is not None:
        out.update(counts)
    return out


def _audit_value(name: str, value: Any) -> Any:
    if name.endswith("_at") and isinstance(value, int | float) and not isinstance(value, bool):
        return iso(value)
    return value


def audit_event(e: AuditEvent) -> dict[str, Any]:
    def fields(values: dict[str, Any] | None) -> dict[str, Any] | None:
        if values is None:
            return None
        return {k: _audit_value(k, v) for k, v in values.items()}

    return {
        "seq": e.seq,
        "at": iso(e.at),
        "memory_id": e.memory_id,
        "actor": e.actor,
        "action": e.action.value,
        "before": fields(e.before),
        "after": fields(e.after),
    }


def precis_problem(p: PrecisProblem) -> dict[str, Any]:
    return {
        "project_id": p.project_id,
        "path": p.path,
        "reason": p.reason,
        "since": iso(p.since),
        "attempts": p.attempts,
    }


def add_result(r: AddResult) -> dict[str, Any]:
    out: dict[str, Any] = {"status": r.status.value, "memory": memory(r.memory)}
    if r.superseded_id is not None:
        out["superseded_id"] = r.superseded_id
    return out


def search_hit(h: SearchHit) -> dict[str, Any]:
    return {"memory": memory(h.memory), "score": h.score, "snippet": h.snippet}


def recall_hit(h: RecallHit) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": h.kind, "score": h.score, "snippet": h.snippet}
    if h.memory is not None:
        out["memory"] = memory(h.memory)
    if h.observation is not None:
        out["observation"] = observation(h.observation)
    return out


def precis(p: PrecisInfo) -> dict[str, Any]:
    return {
        "text": p.text,
        "bytes": p.bytes,
        "budget": p.budget,
        "truncated": p.truncated,
        "path": p.path,
        "memory_ids": list(p.memory_ids),
    }


def stats(s: ScopeStats) -> dict[str, Any]:
    return {
        "project_id": s.project_id,
        "active": s.active,
        "disabled": s.disabled,
        "expired": s.expired,
        "stale": s.stale,
        "observations": s.observations,
    }


def forget_result(r: ForgetResult) -> dict[str, Any]:
    return {
        "project_id": r.project_id,
        "forgotten": {"memories": list(r.memories), "observations": list(r.observations)},
        "already_forgotten": list(r.already),
        "refused": [{"id": x.id, "reason": x.reason} for x in r.refused],
    }

"""Records as JSON: every field, timestamps as ISO 8601 UTC strings."""

from __future__ import annotations

import calendar
import math
import re
import time
from typing import Any, overload

from ltm_desktop.api.shapes import (
    AddResultShape,
    AuditEventShape,
    IndexStatusShape,
    MemoryMdProblemShape,
    MemoryShape,
    ObservationShape,
    OutboxShape,
    PrecisShape,
    ProjectShape,
    ProvenanceShape,
    RecallHitShape,
    SearchHitShape,
    StatsShape,
)
from ltm_desktop.core.offline import OfflineStatus
from ltm_desktop.core.privacy.forgetting import ForgetResult
from ltm_desktop.core.privacy.injection import flag_reason
from ltm_desktop.core.records import (
    AddResult,
    AuditEvent,
    IndexStatus,
    Memory,
    MemoryMdProblem,
    Observation,
    PrecisInfo,
    Project,
    Provenance,
    RecallHit,
    ScopeStats,
    SearchHit,
)


@overload
def iso(timestamp: float) -> str: ...
@overload
def iso(timestamp: None) -> None: ...
@overload
def iso(timestamp: float | None) -> str | None: ...


def iso(timestamp: float | None) -> str | None:
    """``2026-11-30T15:02:04.123Z`` (millisecond precision), or None."""
    if timestamp is None:
        return None
    fraction, whole = math.modf(timestamp)  # rounds like datetime.fromtimestamp
    micros = round(fraction * 1_000_000)
    if micros >= 1_000_000:
        whole, micros = whole + 1, micros - 1_000_000
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole)) + f".{micros // 1000:03d}Z"


_ISO = re.compile(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)\.(\d{3})Z", re.ASCII)


def parse_iso(text: str) -> float | None:
    """The timestamp of a string ``iso`` wrote (exactly that shape), or None."""
    match = _ISO.fullmatch(text)
    if match is None:
        return None
    year, month, day, hour, minute, second, millis = (int(g) for g in match.groups())
    if not (
        year >= 1
        and 1 <= month <= 12
        and 1 <= day <= 31
        and hour < 24
        and minute < 60
        and second < 60
    ):
        return None
    if day > calendar.monthrange(year, month)[1]:
        return None
    whole = calendar.timegm((year, month, day, hour, minute, second, 0, 0, 0))
    return (whole * 1000 + millis) / 1000


def memory(m: Memory) -> MemoryShape:
    return {
        "id": m.id,
        "project_id": m.project_id,
        "title": m.title,
        "content": m.content,
        "category": m.category.value,
        "importance": m.importance,
        "tags": list(m.tags),
        "files": list(m.files),
        "created_at": iso(m.created_at),
        "updated_at": iso(m.updated_at),
        "last_used_at": iso(m.last_used_at),
        "use_count": m.use_count,
        "ttl_days": m.ttl_days,
        "disabled": m.disabled,
        "source": m.source,
        "superseded_by": m.superseded_by,
        "review_state": None if m.review_state is None else m.review_state.value,
        "provenance": None if m.provenance is None else provenance(m.provenance),
        "flagged": flag_reason(m),
    }


def provenance(p: Provenance) -> ProvenanceShape:
    return {
        "run_id": p.run_id,
        "agent": p.agent,
        "session_id": p.session_id,
        "source": p.source,
        "model": p.model,
        "extracted_at": iso(p.extracted_at),
    }


def observation(o: Observation) -> ObservationShape:
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


def project(p: Project, counts: StatsShape | None = None) -> ProjectShape:
    out: ProjectShape = {"project_id": p.project_id, "path": p.path, "name": p.name}
    if counts is not None:
        out["active"], out["disabled"] = counts["active"], counts["disabled"]
        out["expired"], out["stale"] = counts["expired"], counts["stale"]
        out["observations"] = counts["observations"]
    return out


def _audit_value(name: str, value: Any) -> Any:
    if name.endswith("_at") and isinstance(value, int | float) and not isinstance(value, bool):
        return iso(value)
    return value


def audit_event(e: AuditEvent) -> AuditEventShape:
    def fields(values: dict[str, Any] | None) -> dict[str, Any] | None:
        if values is None:
            return None
        return {k: _audit_value(k, v) for k, v in values.items()}

    return {
        "seq": e.seq,
        "at": iso(e.at),
        "memory_id": e.memory_id,
        "actor": e.actor,
        "person": e.person,
        "machine": e.machine,
        "machine_id": e.machine_id,
        "action": e.action.value,
        "before": fields(e.before),
        "after": fields(e.after),
    }


def memory_md_problem(p: MemoryMdProblem) -> MemoryMdProblemShape:
    return {
        "project_id": p.project_id,
        "path": p.path,
        "reason": p.reason,
        "since": iso(p.since),
        "attempts": p.attempts,
    }


def add_result(r: AddResult) -> AddResultShape:
    out: AddResultShape = {"status": r.status.value, "memory": memory(r.memory)}
    if r.superseded_id is not None:
        out["superseded_id"] = r.superseded_id
    return out


def search_hit(h: SearchHit) -> SearchHitShape:
    out: SearchHitShape = {
        "memory": memory(h.memory),
        "score": h.score,
        "snippet": h.snippet,
        "matched": h.matched,
    }
    if h.similarity is not None:
        out["similarity"] = round(h.similarity, 4)
    return out


def recall_hit(h: RecallHit) -> RecallHitShape:
    out: RecallHitShape = {"kind": h.kind, "score": h.score, "snippet": h.snippet}
    if h.memory is not None:
        out["memory"] = memory(h.memory)
        out["matched"] = h.matched
    if h.observation is not None:
        out["observation"] = observation(h.observation)
    return out


def index_status(status: IndexStatus) -> IndexStatusShape:
    return {
        "model": status.model or None,
        "with_vectors": status.with_vectors,
        "memories": status.memories,
        "backfilling": status.running,
        "problem": status.problem,
    }


def precis(p: PrecisInfo) -> PrecisShape:
    return {
        "text": p.text,
        "bytes": p.bytes,
        "budget": p.budget,
        "truncated": p.truncated,
        "path": p.path,
        "memory_ids": list(p.memory_ids),
    }


def stats(s: ScopeStats) -> StatsShape:
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


def outbox(status: OfflineStatus, now: float) -> OutboxShape:
    oldest = status.oldest_at
    return {
        "offline": status.offline,
        "waiting": status.waiting,
        "oldest_queued_at": iso(oldest),
        "oldest_age_s": None if oldest is None else round(max(0.0, now - oldest), 3),
        "kept": status.conflicts,
        "text": status.describe(now),
    }

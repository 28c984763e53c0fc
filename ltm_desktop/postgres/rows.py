"""The SQL that reads rows in the column order the shared codec (``engine.rows``)
decodes, and the narrowing shared by the list and the search, with psycopg's ``%s``."""

from __future__ import annotations

from typing import Any

from ltm_desktop.core.records import GUI_ACTOR

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
        clauses.append(f"{alias}.category = %s")
        params.append(category)
    if tag is not None:
        clauses.append(f"{alias}.pk IN (SELECT memory_pk FROM memory_tags WHERE tag = %s)")
        params.append(tag)
    if new_since is not None:
        clauses.append(f"{alias}.created_at > %s AND {alias}.source != %s")
        params += [new_since, GUI_ACTOR]
    return clauses, params

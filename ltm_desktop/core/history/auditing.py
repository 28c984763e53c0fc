"""What the audit history records of a memory and of a change to it."""

from __future__ import annotations

from typing import Any

from ltm_desktop.core.records import Memory

# Fields of a memory that the audit history records, in record order.
AUDITED_FIELDS = (
    "id",
    "project_id",
    "title",
    "content",
    "category",
    "importance",
    "tags",
    "created_at",
    "updated_at",
    "ttl_days",
    "disabled",
    "source",
    "superseded_by",
    "review_state",
)


def memory_snapshot(memory: Memory) -> dict[str, Any]:
    """The audited fields of a memory as JSON-ready values."""
    snapshot = {name: getattr(memory, name) for name in AUDITED_FIELDS}
    snapshot["tags"] = list(memory.tags)
    snapshot["category"] = memory.category.value
    snapshot["review_state"] = None if memory.review_state is None else memory.review_state.value
    if memory.files:  # recorded only when named (older events have none)
        snapshot["files"] = list(memory.files)
    if memory.provenance is not None:  # where an extracted memory came from (never changes)
        snapshot["provenance"] = memory.provenance.as_dict()
    return snapshot


def changed_fields(before: Memory, after: Memory) -> tuple[dict[str, Any], dict[str, Any]]:
    """Only the audited fields that differ, as (before, after)."""
    old, new = memory_snapshot(before), memory_snapshot(after)
    keys = [k for k in AUDITED_FIELDS if old[k] != new[k]]
    if before.files != after.files:
        old["files"], new["files"] = list(before.files), list(after.files)
        keys.append("files")
    if len(keys) > 1 and "updated_at" in keys:  # every edit bumps it; record it only alone
        keys.remove("updated_at")
    return {k: old[k] for k in keys}, {k: new[k] for k in keys}

"""Telling a client that its committed write could not reach a MEMORY.md file."""

from __future__ import annotations

from typing import Any

from ltm_desktop.core.service import MemoryService

# How long a write's answer waits for its own scope's MEMORY.md (normally milliseconds),
# so that an agent reading the file next sees its write, and the warning is current.
SETTLE_SECONDS = 0.5


def with_memory_md_warning(service: MemoryService, result: Any) -> Any:
    """A committed write's result, plus a ``warning`` when a MEMORY.md it should have
    updated could not be written (the write itself succeeded and is not to be retried)."""
    service.memory_md.settle(SETTLE_SECONDS)
    problems = service.memory_md.problems()
    if not problems or not isinstance(result, dict):
        return result
    written = result.get("memory", {}).get("project_id")
    relevant = [
        p
        for p in problems
        if written is None or service.ambient.is_ambient(written) or p.project_id == written
    ]
    if not relevant:
        return result
    shown = "; ".join(p.describe() for p in relevant[:3])
    more = f" (and {len(relevant) - 3} more)" if len(relevant) > 3 else ""
    warning = f"saved, but {shown}{more}; it will be retried"
    return {**result, "warning": warning}

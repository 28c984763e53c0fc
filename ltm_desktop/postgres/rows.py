"""The shared row SQL (``engine.rows``) with PostgreSQL's placeholder."""

from __future__ import annotations

from typing import Any

from ltm_desktop.engine import rows as shared
from ltm_desktop.engine.rows import (
    AUDIT_COLUMNS,
    AUDIT_FROM,
    MEMORY_COLUMNS,
    MEMORY_FROM,
    OBSERVATION_COLUMNS,
    OBSERVATION_FROM,
)

__all__ = [
    "AUDIT_COLUMNS",
    "AUDIT_FROM",
    "MEMORY_COLUMNS",
    "MEMORY_FROM",
    "OBSERVATION_COLUMNS",
    "OBSERVATION_FROM",
    "narrowing",
]


def narrowing(
    alias: str, category: str | None, tag: str | None, new_since: float | None
) -> tuple[list[str], list[Any]]:
    """``engine.rows.narrowing`` with ``%s``."""
    return shared.narrowing(alias, category, tag, new_since, "%s")

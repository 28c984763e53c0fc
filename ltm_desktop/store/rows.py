"""The shared row SQL (``engine.rows``) with SQLite's placeholder."""

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
    audit_from_row,
    bad_json_columns,
    decode_provenance,
    decode_strings,
    memory_from_row,
    observation_from_row,
    provenance_from_json,
    provenance_json,
    tags_json,
)

__all__ = [
    "AUDIT_COLUMNS",
    "AUDIT_FROM",
    "MEMORY_COLUMNS",
    "MEMORY_FROM",
    "OBSERVATION_COLUMNS",
    "OBSERVATION_FROM",
    "audit_from_row",
    "bad_json_columns",
    "decode_provenance",
    "decode_strings",
    "memory_from_row",
    "observation_from_row",
    "provenance_from_json",
    "provenance_json",
    "narrowing",
    "tags_json",
]


def narrowing(
    alias: str, category: str | None, tag: str | None, new_since: float | None
) -> tuple[list[str], list[Any]]:
    """``engine.rows.narrowing`` with ``?``."""
    return shared.narrowing(alias, category, tag, new_since, "?")

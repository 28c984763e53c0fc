"""Optimistic concurrency on the wire: ``expected_updated_at`` in, a conflict's data out."""

from __future__ import annotations

from typing import Any

from ltm_desktop.api import serialize
from ltm_desktop.api.params import Params, invalid
from ltm_desktop.core import rules
from ltm_desktop.core.errors import Conflict


def expected_version(p: Params) -> float | None:
    """``expected_updated_at``: an ``updated_at`` exactly as this API wrote it."""
    text = p.text("expected_updated_at")
    if text is None:
        return None
    value = serialize.parse_iso(text)
    if value is None:
        raise invalid(
            "expected_updated_at",
            "must be an updated_at exactly as the API returned it, like "
            f"'2026-11-30T15:56:59.843Z'; got {rules.shown(text)}",
        )
    return value


def conflict_data(exc: Conflict) -> dict[str, Any] | None:
    """``error.data`` of a conflict: what is stored now, and why the write was refused."""
    data: dict[str, Any] = {}
    if exc.other_id:
        data["other_id"] = exc.other_id
    if exc.reason:
        data["reason"] = exc.reason.value
    if exc.current is not None:
        data["memory"] = serialize.memory(exc.current)
    return data or None

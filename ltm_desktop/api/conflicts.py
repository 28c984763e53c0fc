"""Optimistic concurrency on the wire: ``expected_updated_at`` in, a conflict's data out."""

from __future__ import annotations

from typing import Annotated, Any

from ltm_desktop.api import serialize
from ltm_desktop.api.params import Checked, invalid
from ltm_desktop.core import rules
from ltm_desktop.core.errors import Conflict


def parse_version(text: str, name: str) -> float:
    """An ``updated_at`` exactly as this API wrote it, as the timestamp it stands for."""
    value = serialize.parse_iso(text)
    if value is None:
        raise invalid(
            name,
            "must be an updated_at exactly as the API returned it, like "
            f"'2026-11-30T15:56:59.843Z'; got {rules.shown(text)}",
        )
    return value


Version = Annotated[float, Checked(parse_version, sent=str)]
"""``expected_updated_at``: the version a write expects (sent as an ``updated_at``)."""


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

"""``updated_at`` as a memory's version: what compare-and-swap writes compare.

The API shows ``updated_at`` with millisecond precision, so that is the precision
versions are compared at, and every write that moves ``updated_at`` moves it by at
least one millisecond: two versions of a memory never look the same to a client,
even when two writes fall in the same millisecond or the clock steps back.
"""

from __future__ import annotations

import math

from ltm_desktop.core.errors import ConflictReason, InvalidInput, StaleEdit
from ltm_desktop.core.records import Memory
from ltm_desktop.core.rules import describe


def millis(timestamp: float) -> int:
    """The whole milliseconds of ``timestamp``, rounded exactly as the API prints them."""
    fraction, whole = math.modf(timestamp)
    micros = round(fraction * 1_000_000)
    return int(whole) * 1000 + micros // 1000


def same_version(stored: float, seen: float) -> bool:
    """Whether ``seen`` (an ``updated_at`` a caller read) is the stored version."""
    return millis(stored) == millis(seen)


def next_version(previous: float, now: float) -> float:
    """The ``updated_at`` of a write at ``now`` to a memory now at ``previous``:
    ``now``, unless that would not be a later millisecond than ``previous``."""
    if millis(now) > millis(previous):
        return now
    return (millis(previous) + 1) / 1000


def check_version(memory: Memory, expected_updated_at: float | None) -> None:
    """Compare-and-swap: raise StaleEdit unless ``memory`` is still the version the
    caller read (None: the caller asked for no check)."""
    if expected_updated_at is not None and not same_version(memory.updated_at, expected_updated_at):
        raise StaleEdit(
            f"memory {memory.id} was changed by someone else since you read it; "
            "nothing was written: read it again, then retry",
            reason=ConflictReason.STALE,
            current=memory,
        )


def check_expected(value: object) -> float | None:
    """An ``expected_updated_at`` as a timestamp (None: write without the check)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InvalidInput(
            f"expected_updated_at must be a timestamp, not {describe(value)}",
            "expected_updated_at",
        )
    return float(value)

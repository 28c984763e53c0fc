"""The versions this window's own writes made: a write names the version the person saw,
and one of ours on top of it since is followed forward (so the person's next action on
that memory is never a conflict with the window itself). Plain functions, safe on a
worker: the bulk actions move thousands of versions there, not on the UI thread."""

from __future__ import annotations

from collections.abc import Mapping

from ltm_desktop.core.versions import millis
from ltm_desktop.gui import ops

# (memory id, a version in milliseconds) -> the version a write of ours made of it
Written = list[tuple[tuple[str, int], float]]


def follow(known: Mapping[tuple[str, int], float], memory_id: str, seen: float) -> float:
    """``seen``, moved past every write of ours ``known`` names (one of ours on top of
    that, and so on)."""
    for _ in range(len(known) + 1):
        later = known.get((memory_id, millis(seen)))
        if later is None:
            break
        seen = later
    return seen


def written_by(memory_id: str, before: float, after: float) -> Written:
    """What to remember of a write of ours: version ``before`` became ``after``."""
    return [((memory_id, millis(before)), after)] if millis(after) != millis(before) else []


def remembered(outcome: ops.BulkOutcome) -> Written:
    """Worker side: what to remember of the writes of ``outcome``."""
    return [
        pair
        for write, memory in zip(outcome.writes, outcome.done, strict=True)
        for pair in written_by(write.memory_id, write.seen, memory.updated_at)
    ]

"""An audit event's ``after`` without the values its own columns already say.

A created or imported memory's event records its whole record: its id, scope and times
(the event's own ``memory_id``, scope and ``at``), its source (most often the actor) and
the defaults of a new memory (no TTL, enabled, superseding nothing, not under review).
At 100,000 imported memories those repeated values were about a third of the audit
history's bytes. ``compact`` leaves out each of them that equals what the event says,
noting which under the key ``~`` (a bit per name of ``IMPLIED``); ``expand`` puts them
back, in the record's order. The stored text is what the hash chain covers, so an old
event (never compacted) and a new one both verify, and every reader (history, the GUI's
Activity, ``verify``'s replay, an export) sees the same record as before.

A value is left out only when writing it back gives the very same JSON text (same
values, same key order): ``compact`` checks that, and stores the record whole otherwise.
Every engine reads through ``expand`` (``engine.rows.audit_from_row``), so a history
copied between engines reads the same in each.
"""

from __future__ import annotations

import json
from typing import Any

MARK = "~"
# The record's fields in the order they were written when the values were left out: a
# stored format, so fixed here (were the model's order ever to change, ``compact``'s
# round-trip check stores such records whole, and older events still read back as
# written).
RECORD_ORDER = (
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
# Names a record may leave out, a bit each (in this order: never reorder, only append).
IMPLIED = (
    "id",
    "project_id",
    "created_at",
    "updated_at",
    "ttl_days",
    "disabled",
    "source",
    "superseded_by",
    "review_state",
)


def _implied(memory_id: str, project_id: str, at: float, actor: str) -> dict[str, Any]:
    """What each of ``IMPLIED`` is when the event says it."""
    return {
        "id": memory_id,
        "project_id": project_id,
        "created_at": at,
        "updated_at": at,
        "ttl_days": None,
        "disabled": False,
        "source": actor,
        "superseded_by": None,
        "review_state": None,
    }


def _text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def compact(
    after: dict[str, Any] | None, memory_id: str, project_id: str, at: float, actor: str
) -> dict[str, Any] | None:
    """``after`` without the values the event says (``expand`` gives it back exactly);
    ``after`` itself when nothing can be left out or the round trip would differ."""
    if not after or MARK in after:
        return after
    implied = _implied(memory_id, project_id, at, actor)
    mask = 0
    for bit, name in enumerate(IMPLIED):
        if name in after and _text(after[name]) == _text(implied[name]):
            mask |= 1 << bit
    if not mask:
        return after
    left_out = {name for bit, name in enumerate(IMPLIED) if mask >> bit & 1}
    shorter = {MARK: mask, **{k: v for k, v in after.items() if k not in left_out}}
    back = expand(shorter, memory_id, project_id, at, actor)
    return shorter if _text(back) == _text(after) else after


def expand(
    values: dict[str, Any] | None, memory_id: str, project_id: str, at: float, actor: str
) -> dict[str, Any] | None:
    """The record ``compact`` left values out of, whole again; anything else as it is."""
    if not values or MARK not in values:
        return values
    mask = values[MARK]
    if not isinstance(mask, int) or isinstance(mask, bool) or mask <= 0 or mask >> len(IMPLIED):
        return values  # not ours: shown as stored
    implied = _implied(memory_id, project_id, at, actor)
    left_out = {name for bit, name in enumerate(IMPLIED) if mask >> bit & 1}
    rest = {k: v for k, v in values.items() if k != MARK}
    whole: dict[str, Any] = {}
    for name in RECORD_ORDER:
        if name in left_out:
            whole[name] = implied[name]
        elif name in rest:
            whole[name] = rest.pop(name)
    whole.update(rest)  # files, provenance, notes: after the fields, as written
    return whole

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
value and type, the record's key order): ``compact`` stores the record whole otherwise.
Every engine reads through ``expand`` (``engine.rows.audit_from_row``), so a history
copied between engines reads the same in each.
"""

from __future__ import annotations

from typing import Any

MARK = "~"
# The record's fields in the order they were written when the values were left out: a
# stored format, so fixed here (were the model's order ever to change, ``compact``
# would store such records whole, and older events would still read back as
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


_POSITION = {name: i for i, name in enumerate(RECORD_ORDER)}
_BIT = {name: 1 << bit for bit, name in enumerate(IMPLIED)}


def _same(value: Any, implied: Any) -> bool:
    """Equal and of the same type: written back, the very same JSON (``0`` is not
    ``false``, ``1`` is not ``1.0``)."""
    return type(value) is type(implied) and value == implied


def _in_record_order(after: dict[str, Any]) -> bool:
    """The record's fields first and in ``RECORD_ORDER``, anything else after them: the
    order ``expand`` writes (so the round trip gives the same key order)."""
    last, others = -1, False
    for name in after:
        position = _POSITION.get(name, -1)
        if position < 0:
            others = True
        elif others or position <= last:
            return False
        else:
            last = position
    return True


def compact(
    after: dict[str, Any] | None, memory_id: str, project_id: str, at: float, actor: str
) -> dict[str, Any] | None:
    """``after`` without the values the event says (``expand`` gives it back exactly);
    ``after`` itself when nothing can be left out or the round trip would differ."""
    if not after or MARK in after or not _in_record_order(after):
        return after
    implied = _implied(memory_id, project_id, at, actor)
    mask = 0
    for name, bit in _BIT.items():
        if name in after and _same(after[name], implied[name]):
            mask |= bit
    if not mask:
        return after
    shorter: dict[str, Any] = {MARK: mask}
    for name, value in after.items():
        if not mask & _BIT.get(name, 0):
            shorter[name] = value
    return shorter


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

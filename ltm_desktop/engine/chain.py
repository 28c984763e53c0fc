"""The audit history's hash chain, as every engine computes it.

Each event carries ``content_hash`` (SHA-256 of a random nonce and its before/after
texts) and ``hash`` (SHA-256 of the previous event's hash, its own fields and its
``content_hash``). Changing an event's content breaks its ``content_hash``; recomputing
that breaks its ``hash``; recomputing every later hash changes the head, which
``ltm-desktop verify`` prints. Erasing a memory replaces its events' before and after
with a tombstone and drops their nonces: the chain still links, and what was there can
no longer be confirmed by guessing (the nonce was the salt). The engines compute it
alike, so a history moved from SQLite to PostgreSQL (or back) still verifies.

An event's person and machine (``Who``: person, machine name, machine id) are hashed
with its fields when it has them: an event from before they were recorded has none and
hashes as it always did, so an old history still verifies after the migration that
added them, and giving such an event a person afterwards breaks its hash as surely as
changing a new event's.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

GENESIS = "0" * 64
TOMBSTONE_KEYS = ("erased_at", "erased_by")
Who = tuple[str | None, str | None, str | None]  # person, machine name, machine id
NOBODY: Who = (None, None, None)  # an event from before people and machines were recorded


def content_hash(nonce: str, before: str | None, after: str | None) -> str:
    return hashlib.sha256(json.dumps([nonce, before, after]).encode("utf-8")).hexdigest()


def event_hash(
    previous: str,
    seq: int,
    at: float,
    memory_id: str,
    project_pk: int,
    actor: str,
    action: str,
    content: str,
    who: Who = NOBODY,
) -> str:
    fields: list[Any] = [previous, seq, at, memory_id, project_pk, actor, action, content]
    if who != NOBODY:  # hashed only when recorded: older events keep their hashes
        fields.extend(who)
    return hashlib.sha256(json.dumps(fields).encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class Link:
    """What a new event stores beside its fields."""

    seq: int
    nonce: str
    content_hash: str
    hash: str


def link_after(
    last: tuple[int, str],
    at: float,
    memory_id: str,
    project_pk: int,
    actor: str,
    action: str,
    before: str | None,
    after: str | None,
    who: Who = NOBODY,
) -> Link:
    """The link of an event that follows ``last`` (seq, hash): a batch of events is
    chained from the head read once, each from the one before it."""
    last_seq, previous = last
    seq = last_seq + 1
    nonce = secrets.token_hex(16)
    content = content_hash(nonce, before, after)
    return Link(
        seq,
        nonce,
        content,
        event_hash(previous, seq, at, memory_id, project_pk, actor, action, content, who),
    )


def is_tombstone(nonce: str | None, before: str | None, after: str | None) -> bool:
    if nonce is not None or before is not None or after is None:
        return False
    try:
        values = json.loads(after)
    except ValueError:
        return False
    return isinstance(values, dict) and sorted(values) == list(TOMBSTONE_KEYS)


@dataclass(frozen=True, slots=True)
class Broken:
    """The first event that does not check out, and why."""

    seq: int
    memory_id: str
    action: str
    reason: str

    def describe(self) -> str:
        return f"audit event #{self.seq} ({self.action} of {self.memory_id}) {self.reason}"


def check_event(row: Sequence[Any], previous: str) -> str | None:
    """Why the event does not check out, or None. ``row``: seq, at, memory_id,
    project_pk, actor, action, before, after, nonce, content_hash, hash, then (when the
    schema has them) person, machine, machine_id."""
    seq, at, memory_id, project_pk, actor, action, before, after, nonce, content, stored = row[:11]
    who: Who = (row[11], row[12], row[13]) if len(row) >= 14 else NOBODY
    if stored is None or content is None:
        return "has no hash"
    if nonce is not None and content != content_hash(nonce, before, after):
        return "was changed after it was written (its content does not match its hash)"
    if nonce is None and not is_tombstone(None, before, after):
        return "lost its nonce without being erased"
    expected = event_hash(previous, seq, at, memory_id, project_pk, actor, action, content, who)
    if stored != expected:
        return "does not follow the event before it (the chain was rewritten here)"
    return None

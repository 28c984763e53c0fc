"""The audit history as a hash chain, so that rewriting it shows.

Each event carries ``content_hash`` (SHA-256 of a random nonce and its before/after
texts) and ``hash`` (SHA-256 of the previous event's hash, its own fields and its
``content_hash``). Changing an event's content breaks its ``content_hash``; recomputing
that breaks its ``hash``; recomputing every later hash changes the head, which
``ltm-desktop verify`` prints. Erasing a memory (``erase``) replaces its events' before
and after with a tombstone and drops their nonces: the chain still links, and what
was there can no longer be confirmed by guessing (the nonce was the salt).

The triggers only let an update through when it is such a tombstone, and never a delete.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import sqlite3
from dataclasses import dataclass
from typing import Any

GENESIS = "0" * 64
TOMBSTONE_KEYS = ("erased_at", "erased_by")

# A tombstone keeps every field but before/after (and drops the nonce); anything else is
# refused, as is a delete.
TRIGGERS = {
    "audit_is_append_only_update": """CREATE TRIGGER audit_is_append_only_update
        BEFORE UPDATE ON audit
        WHEN NOT (NEW.seq = OLD.seq AND NEW.at = OLD.at AND NEW.memory_id = OLD.memory_id
            AND NEW.project_pk = OLD.project_pk AND NEW.actor = OLD.actor
            AND NEW.action = OLD.action AND NEW.content_hash IS OLD.content_hash
            AND NEW.hash IS OLD.hash AND NEW.nonce IS NULL AND NEW.before IS NULL
            AND json_valid(NEW.after) AND json_type(NEW.after, '$.erased_at') = 'real'
            AND json_type(NEW.after, '$.erased_by') = 'text'
            AND (SELECT count(*) FROM json_each(NEW.after)) = 2)
        BEGIN SELECT RAISE(ABORT, 'the audit history is append-only'); END""",
    "audit_is_append_only_delete": """CREATE TRIGGER audit_is_append_only_delete
        BEFORE DELETE ON audit
        BEGIN SELECT RAISE(ABORT, 'the audit history is append-only'); END""",
}


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
) -> str:
    fields = [previous, seq, at, memory_id, project_pk, actor, action, content]
    return hashlib.sha256(json.dumps(fields).encode("utf-8")).hexdigest()


def head(conn: sqlite3.Connection) -> tuple[int, str]:
    """(seq, hash) of the newest event; (0, GENESIS) when there is none."""
    row = conn.execute("SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1").fetchone()
    return (0, GENESIS) if row is None else (int(row[0]), str(row[1] or GENESIS))


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
        event_hash(previous, seq, at, memory_id, project_pk, actor, action, content),
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


_ROWS = (
    "SELECT seq, at, memory_id, project_pk, actor, action, before, after, nonce, "
    "content_hash, hash FROM audit WHERE seq > ? ORDER BY seq"
)


def check_chain(conn: sqlite3.Connection, last: int | None = None) -> tuple[Broken | None, str]:
    """(the first broken event or None, the head hash). ``last``: check only the newest
    ``last`` events (linked to the hash stored before them), for a quick look."""
    start = 0
    previous = GENESIS
    if last is not None:
        row = conn.execute(
            "SELECT seq, hash FROM audit WHERE seq <= (SELECT max(seq) FROM audit) - ? "
            "ORDER BY seq DESC LIMIT 1",
            (last,),
        ).fetchone()
        if row is not None:
            start, previous = int(row[0]), str(row[1])
    for row in conn.execute(_ROWS, (start,)):
        seq, at, memory_id, project_pk, actor, action, before, after, nonce, content, stored = row
        broken = _check_event(row, previous)
        if broken is not None:
            return Broken(seq, memory_id, action, broken), previous
        previous = stored
    return None, previous


def _check_event(row: tuple[Any, ...], previous: str) -> str | None:
    """Why the event does not check out, or None."""
    seq, at, memory_id, project_pk, actor, action, before, after, nonce, content, stored = row
    if stored is None or content is None:
        return "has no hash"
    if nonce is not None and content != content_hash(nonce, before, after):
        return "was changed after it was written (its content does not match its hash)"
    if nonce is None and not is_tombstone(None, before, after):
        return "lost its nonce without being erased"
    expected = event_hash(previous, seq, at, memory_id, project_pk, actor, action, content)
    if stored != expected:
        return "does not follow the event before it (the chain was rewritten here)"
    return None


def rechain(conn: sqlite3.Connection, batch: int = 1_000) -> int:
    """Give every event its nonce, content hash and hash, in order (the migration to the
    chained history), a batch at a time; returns how many. Needs the triggers dropped."""
    previous, last, count = GENESIS, 0, 0
    while rows := conn.execute(
        "SELECT seq, at, memory_id, project_pk, actor, action, before, after FROM audit "
        "WHERE seq > ? ORDER BY seq LIMIT ?",
        (last, batch),
    ).fetchall():
        for seq, at, memory_id, project_pk, actor, action, before, after in rows:
            nonce = secrets.token_hex(16)
            content = content_hash(nonce, before, after)
            previous = event_hash(previous, seq, at, memory_id, project_pk, actor, action, content)
            conn.execute(
                "UPDATE audit SET nonce = ?, content_hash = ?, hash = ? WHERE seq = ?",
                (nonce, content, previous, seq),
            )
        last = rows[-1][0]
        count += len(rows)
    return count

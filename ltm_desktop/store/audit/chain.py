"""The audit history's hash chain in SQLite: its head, its check and the migration that
chained an older history (the hashes themselves: ``engine.chain``).

The triggers only let an update through when it is such a tombstone, and never a delete.
"""

from __future__ import annotations

import secrets
import sqlite3

from ltm_desktop.engine.chain import (
    GENESIS,
    TOMBSTONE_KEYS,
    Broken,
    Link,
    content_hash,
    event_hash,
    is_tombstone,
    link_after,
)
from ltm_desktop.engine.verifying import follow_chain

__all__ = [
    "GENESIS",
    "TOMBSTONE_KEYS",
    "TRIGGERS",
    "Broken",
    "Link",
    "check_chain",
    "content_hash",
    "event_hash",
    "head",
    "is_tombstone",
    "link_after",
    "rechain",
]

# A tombstone keeps every field but before/after (and drops the nonce); anything else is
# refused, as is a delete. (Migration 14 made them: the person and machine stay too.)
TRIGGERS = {
    "audit_is_append_only_update": """CREATE TRIGGER audit_is_append_only_update
        BEFORE UPDATE ON audit
        WHEN NOT (NEW.seq = OLD.seq AND NEW.at = OLD.at AND NEW.memory_id = OLD.memory_id
            AND NEW.project_pk = OLD.project_pk AND NEW.actor = OLD.actor
            AND NEW.action = OLD.action AND NEW.content_hash IS OLD.content_hash
            AND NEW.hash IS OLD.hash AND NEW.person IS OLD.person
            AND NEW.machine IS OLD.machine AND NEW.machine_id IS OLD.machine_id
            AND NEW.nonce IS NULL AND NEW.before IS NULL
            AND json_valid(NEW.after) AND json_type(NEW.after, '$.erased_at') = 'real'
            AND json_type(NEW.after, '$.erased_by') = 'text'
            AND (SELECT count(*) FROM json_each(NEW.after)) = 2)
        BEGIN SELECT RAISE(ABORT, 'the audit history is append-only'); END""",
    "audit_is_append_only_delete": """CREATE TRIGGER audit_is_append_only_delete
        BEFORE DELETE ON audit
        BEGIN SELECT RAISE(ABORT, 'the audit history is append-only'); END""",
}


def head(conn: sqlite3.Connection) -> tuple[int, str]:
    """(seq, hash) of the newest event; (0, GENESIS) when there is none."""
    row = conn.execute("SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1").fetchone()
    return (0, GENESIS) if row is None else (int(row[0]), str(row[1] or GENESIS))


_ROWS = (
    "SELECT seq, at, memory_id, project_pk, actor, action, before, after, nonce, "
    "content_hash, hash{who} FROM audit WHERE seq > ? ORDER BY seq"
)


def _rows(conn: sqlite3.Connection) -> str:
    """The chain's rows, with the person and machine where the file has them (a backup
    from before migration 14 has not)."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(audit)")}
    return _ROWS.format(who=", person, machine, machine_id" if "person" in columns else "")


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
    return follow_chain(conn.execute(_rows(conn), (start,)), previous)


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

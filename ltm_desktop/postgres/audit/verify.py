"""What ``ltm-desktop verify`` asks of PostgreSQL: the append-only trigger on the audit
history (there, enabled, and its function as the schema made it), the audit chain (the
newest events only, when quick), and (unless quick) the memories whose JSON columns do
not decode, which reads tolerate, so only this check tells.

The rest of SQLite's checks are about its file (``integrity_check``, the chain's anchor
beside it, the FTS5 tables) and have no counterpart: the server keeps its own pages and
GIN indexes. The memories are replayed from their history by the core
(``core.history.verifying``), on every engine alike.
"""

from __future__ import annotations

import re

from ltm_desktop.core.backend import Verification
from ltm_desktop.engine.verifying import QUICK_EVENTS, json_problems
from ltm_desktop.postgres.audit.log import check_chain
from ltm_desktop.postgres.conn import Conn
from ltm_desktop.postgres.schema import MIGRATIONS

__all__ = ["verify_database"]

TRIGGER = "audit_is_append_only"
FUNCTION = "audit_is_append_only"
# pg_trigger.tgtype bits: FOR EACH ROW, BEFORE, DELETE, UPDATE
_ROW, _BEFORE, _DELETE, _UPDATE = 1 << 0, 1 << 1, 1 << 3, 1 << 4
_ENABLED = ("O", "A")  # fires in an ordinary session (not: D disabled, R replica only)


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _schema_body() -> str | None:
    """The body of the trigger's function as the newest migration that (re)made it wrote
    it (between its ``$$``)."""
    body = None
    for migration in MIGRATIONS:
        for statement in migration.statements:
            made = re.match(r"\s*CREATE (OR REPLACE )?FUNCTION (\w+)\(", statement)
            if made is not None and made.group(2) == FUNCTION:
                parts = statement.split("$$")
                body = parts[1] if len(parts) >= 3 else None
    return body


def _trigger(conn: Conn) -> list[str]:
    """Why the audit history could be rewritten: its trigger missing, disabled, firing at
    the wrong time, or its function changed."""
    row = conn.execute(
        "SELECT t.tgenabled, t.tgtype, p.proname, p.prosrc FROM pg_trigger AS t "
        "JOIN pg_proc AS p ON p.oid = t.tgfoid "
        "WHERE t.tgrelid = 'audit'::regclass AND t.tgname = %s AND NOT t.tgisinternal",
        (TRIGGER,),
    ).fetchone()
    if row is None:
        return [f"the trigger {TRIGGER} is missing: the audit history can be rewritten"]
    enabled, kind, function, source = row
    problems = []
    if str(enabled) not in _ENABLED:
        problems.append(f"the trigger {TRIGGER} is disabled: the audit history can be rewritten")
    wanted = _ROW | _BEFORE | _DELETE | _UPDATE
    body = _schema_body()
    if (
        int(kind) & wanted != wanted
        or function != FUNCTION
        or body is None
        or _normal(str(source)) != _normal(body)
    ):
        problems.append(f"the trigger {TRIGGER} was changed")
    return problems


_JSON_LIST = r'^\[("[^"\\\x01-\x1f]*"(, ?"[^"\\\x01-\x1f]*")*)?\]$'
# The rows whose JSON columns may not decode: a list of plain strings (no escapes, no
# control characters) is matched in the server, in C; only the other rows, and the few
# with a provenance, come to the decoder (``engine.rows.bad_json_columns``).
_SUSPECT = (
    "SELECT id, tags, files, provenance FROM memories WHERE provenance IS NOT NULL "
    'OR tags !~ %(list)s OR files !~ %(list)s ORDER BY id COLLATE "C"'
)


def _json_columns(conn: Conn) -> list[str]:
    """The memories whose tags, files or provenance do not decode (read as empty)."""
    with conn.cursor(name="ltm_verify_json") as cursor:
        cursor.itersize = 2_000
        cursor.execute(_SUSPECT, {"list": _JSON_LIST})
        return json_problems(cursor)


def verify_database(conn: Conn, quick: bool) -> Verification:
    """The checks, quick (the trigger and the newest events of the chain) or whole (the
    whole chain and every memory's JSON columns); the chain's head hash and length."""
    problems = _trigger(conn)
    broken, head = check_chain(conn, QUICK_EVENTS if quick else None)
    if broken is not None:
        problems.append(broken.describe())
    if not quick:
        problems += _json_columns(conn)
    row = conn.execute("SELECT count(*) FROM audit").fetchone()
    events = int(row[0]) if row is not None else 0
    return Verification(tuple(problems), head, events, quick)

"""Rows of either storage engine as core records, and records as column values.

Both engines keep the same columns in the same order (``store.rows`` and
``postgres.rows`` name them), so one codec serves both. Decoding never raises on a JSON
column: one damaged row (edited by hand, or by another tool) must not make every list,
export or check that reads it fail. A column that is not what it should be reads as empty
(``None`` for provenance and an event's values), and is logged once per row; ``verify``
names it (``bad_json_columns``).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Sequence
from typing import Any

from ltm_desktop.core.records import (
    GUI_ACTOR,
    AuditAction,
    AuditEvent,
    Category,
    Memory,
    Observation,
    ObservationKind,
    Provenance,
    ReviewState,
)
from ltm_desktop.engine.audit_compact import expand

Row = Sequence[Any]  # a row as a driver returns it (a tuple, sqlite3.Row)

# The columns the codec decodes, in its order, as both engines' SQL selects them.
MEMORY_COLUMNS = (
    "m.id, p.project_id, m.title, m.content, m.category, m.importance, m.tags, m.signature, "
    "m.created_at, m.updated_at, m.last_used_at, m.use_count, m.ttl_days, m.disabled, "
    "m.source, m.superseded_by, m.disabled_at, m.reviewed_at, m.review_state, m.provenance,"
    " m.use_heat, m.files"
)
MEMORY_FROM = "memories AS m JOIN projects AS p ON p.pk = m.project_pk"
OBSERVATION_COLUMNS = (
    "o.id, p.project_id, o.session_id, o.kind, o.title, o.narrative, o.created_at, o.source, "
    "o.disabled"
)
OBSERVATION_FROM = "observations AS o JOIN projects AS p ON p.pk = o.project_pk"
AUDIT_COLUMNS = (
    "a.seq, a.at, a.memory_id, p.project_id, a.actor, a.action, a.before, a.after, "
    "a.person, a.machine, a.machine_id"
)
AUDIT_FROM = "audit AS a JOIN projects AS p ON p.pk = a.project_pk"


def narrowing(
    alias: str, category: str | None, tag: str | None, new_since: float | None, mark: str
) -> tuple[list[str], list[Any]]:
    """SQL conditions on the memories row ``alias`` shared by the list and the search:
    its category, a tag, and "New" (created by an agent, not the app, after ``new_since``).
    ``mark``: the driver's placeholder (``?`` or ``%s``)."""
    clauses: list[str] = []
    params: list[Any] = []
    if category is not None:
        clauses.append(f"{alias}.category = {mark}")
        params.append(category)
    if tag is not None:
        clauses.append(f"{alias}.pk IN (SELECT memory_pk FROM memory_tags WHERE tag = {mark})")
        params.append(tag)
    if new_since is not None:
        clauses.append(f"{alias}.created_at > {mark} AND {alias}.source != {mark}")
        params += [new_since, GUI_ACTOR]
    return clauses, params


log = logging.getLogger(__name__)
WARNED_ROWS_LIMIT = 10_000  # rows remembered as logged (then each is logged again)
_warned: set[str] = set()
_warned_lock = threading.Lock()


def _parsed(text: object) -> tuple[Any, bool]:
    """(the JSON value, True), or (None, False) when ``text`` is not JSON text."""
    if not isinstance(text, str | bytes):
        return None, False
    try:
        return json.loads(text), True
    except (ValueError, RecursionError):
        return None, False


def decode_strings(text: object) -> tuple[tuple[str, ...], bool]:
    """A list-of-strings column (tags, files): (the strings, True), or ((), False)."""
    value, ok = _parsed(text)
    if ok and isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value), True
    return (), False


def decode_provenance(text: object) -> tuple[Provenance | None, bool]:
    """The provenance column (NULL: none): (the value, True), or (None, False)."""
    if text is None:
        return None, True
    value, ok = _parsed(text)
    if ok and isinstance(value, dict):
        try:
            return Provenance.from_dict(value), True
        except (TypeError, ValueError, OverflowError):
            pass
    return None, False


def _decode_values(text: object) -> tuple[dict[str, Any] | None, bool]:
    """An audit event's ``before`` or ``after`` (NULL or empty: none)."""
    if not text:
        return None, True
    value, ok = _parsed(text)
    return (value, True) if ok and isinstance(value, dict) else (None, False)


def bad_json_columns(tags: object, files: object, provenance: object) -> list[str]:
    """The JSON columns of a memory row that do not decode (what ``memory_from_row``
    reads as empty), in column order."""
    checks = (
        ("tags", decode_strings(tags)[1]),
        ("files", decode_strings(files)[1]),
        ("provenance", decode_provenance(provenance)[1]),
    )
    return [name for name, ok in checks if not ok]


def _warn_once(what: str, bad: list[str]) -> None:
    """Log a damaged row the first time it is read (a list reads it again and again)."""
    with _warned_lock:
        if what in _warned:
            return
        if len(_warned) >= WARNED_ROWS_LIMIT:
            _warned.clear()
        _warned.add(what)
    columns = ", ".join(bad)
    noun = "column is" if len(bad) == 1 else "columns are"
    log.warning(
        "%s: its %s %s not valid JSON of the right shape; read as empty "
        "(`ltm-desktop verify` names it)",
        what,
        columns,
        noun,
    )


def memory_from_row(row: Row) -> Memory:
    tags, tags_ok = decode_strings(row[6])
    provenance, provenance_ok = decode_provenance(row[19])
    files, files_ok = decode_strings(row[21])
    if not (tags_ok and provenance_ok and files_ok):
        checks = (("tags", tags_ok), ("files", files_ok), ("provenance", provenance_ok))
        _warn_once(f"memory {row[0]}", [name for name, ok in checks if not ok])
    return Memory(
        id=row[0],
        project_id=row[1],
        title=row[2],
        content=row[3],
        category=Category(row[4]),
        importance=row[5],
        tags=tags,
        signature=row[7],
        created_at=row[8],
        updated_at=row[9],
        last_used_at=row[10],
        use_count=row[11],
        ttl_days=row[12],
        disabled=bool(row[13]),
        source=row[14],
        superseded_by=row[15],
        disabled_at=row[16],
        reviewed_at=row[17],
        review_state=None if row[18] is None else ReviewState(row[18]),
        provenance=provenance,
        use_heat=row[20],
        files=files,
    )


def provenance_json(provenance: Provenance | None) -> str | None:
    return None if provenance is None else json.dumps(provenance.as_dict(), ensure_ascii=False)


def provenance_from_json(text: str | None) -> Provenance | None:
    """None for NULL, and for a value that does not decode."""
    return decode_provenance(text)[0]


def observation_from_row(row: Row) -> Observation:
    return Observation(
        id=row[0],
        project_id=row[1],
        session_id=row[2],
        kind=ObservationKind(row[3]),
        title=row[4],
        narrative=row[5],
        created_at=row[6],
        source=row[7],
        disabled=bool(row[8]),
    )


def audit_from_row(row: Row) -> AuditEvent:
    before, before_ok = _decode_values(row[6])
    after, after_ok = _decode_values(row[7])
    if not (before_ok and after_ok):
        checks = (("before", before_ok), ("after", after_ok))
        _warn_once(f"audit event #{row[0]}", [name for name, ok in checks if not ok])
    return AuditEvent(
        seq=row[0],
        at=row[1],
        memory_id=row[2],
        project_id=row[3],
        actor=row[4],
        action=AuditAction(row[5]),
        before=before,
        after=expand(after, row[2], row[3], row[1], row[4]),  # whole again (audit_compact)
        person=row[8] if len(row) > 8 else None,
        machine=row[9] if len(row) > 9 else None,
        machine_id=row[10] if len(row) > 10 else None,
    )


def tags_json(tags: tuple[str, ...] | list[str]) -> str:
    return json.dumps(list(tags), ensure_ascii=False)


def _same(value: Any) -> Any:
    return value


# Memory field -> how its column stores it (the columns have the fields' names), on both
# engines. ``id`` and ``project_id`` never change.
STORED_FIELDS: dict[str, Callable[[Any], Any]] = {
    "title": _same,
    "content": _same,
    "category": lambda category: category.value,
    "importance": _same,
    "tags": tags_json,
    "signature": _same,
    "created_at": _same,
    "updated_at": _same,
    "last_used_at": _same,
    "use_count": _same,
    "ttl_days": _same,
    "disabled": int,
    "disabled_at": _same,
    "source": _same,
    "superseded_by": _same,
    "reviewed_at": _same,
    "review_state": lambda state: None if state is None else state.value,
    "provenance": provenance_json,
    "files": tags_json,  # a JSON list, like tags
}
SEARCHED_FIELDS = ("title", "content", "tags")  # what a memory's search entry is made of


# The columns a new memory's row is written with, in the order ``memory_values`` gives.
MEMORY_INSERT_COLUMNS = (
    "id, project_pk, title, content, category, importance, tags, signature, created_at, "
    "updated_at, last_used_at, use_count, ttl_days, expires_at, disabled, disabled_at, "
    "source, superseded_by, reviewed_at, token_count, review_state, provenance, files"
)


def memory_values(project_pk: int, memory: Memory, token_count: int) -> tuple[Any, ...]:
    """A new memory's column values, in ``MEMORY_INSERT_COLUMNS``' order."""
    return (
        memory.id,
        project_pk,
        memory.title,
        memory.content,
        memory.category.value,
        memory.importance,
        tags_json(memory.tags),
        memory.signature,
        memory.created_at,
        memory.updated_at,
        memory.last_used_at,
        memory.use_count,
        memory.ttl_days,
        memory.expires_at,
        int(memory.disabled),
        memory.disabled_at,
        memory.source,
        memory.superseded_by,
        memory.reviewed_at,
        token_count,
        None if memory.review_state is None else memory.review_state.value,
        provenance_json(memory.provenance),
        tags_json(memory.files),
    )

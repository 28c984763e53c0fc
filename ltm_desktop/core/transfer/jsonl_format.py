"""The JSONL export format: one JSON object per line, each with a ``type``.

Line 1 is the header (``type: header``: format name and version, app and schema version,
time). Then, per scope, a ``project`` line followed by its ``memory`` lines (every field
of the record; with ``--with-history``, its audit events under ``history``). Importing
checks the header first: a file of a newer format version is refused, not guessed at.

A record's times are seconds since 1970 up to ``MAX_TIME`` (the year 2900): a time in
milliseconds or nanoseconds, or any other number no clock function can turn into a date,
is refused at import instead of breaking every later list, search and export of its scope.
The bound leaves room for an expiry 100 years later in any time zone on every platform
(Windows' clock functions stop at the year 3000). Counts are whole numbers up to
``MAX_COUNT``, the largest every JSON reader (JavaScript's included) keeps exact.
"""

from __future__ import annotations

import math
from typing import Any

from ltm_desktop.core import rules
from ltm_desktop.core.errors import echoed
from ltm_desktop.core.records import (
    AuditEvent,
    Memory,
    MemoryDraft,
    Project,
    Provenance,
    ReviewState,
)

FORMAT_NAME = "ltm-desktop-export"
FORMAT_VERSION = 1
MAX_TIME = 29_348_006_400  # 2900-01-01T00:00:00Z
MAX_COUNT = 2**53 - 1
PROVENANCE_TEXTS = ("run_id", "agent", "session_id", "source", "model")


class RecordError(ValueError):
    """A line that is not a valid record; the message says which field and why."""


def header(app_version: str, schema_version: int, now: float) -> dict[str, Any]:
    return {
        "type": "header",
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "app_version": app_version,
        "schema_version": schema_version,
        "exported_at": now,
    }


def check_header(values: dict[str, Any]) -> None:
    """Raise RecordError unless ``values`` is a header this version can read."""
    if values.get("type") != "header" or values.get("format") != FORMAT_NAME:
        raise RecordError(f"the first line is not an {FORMAT_NAME} header")
    version = values.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise RecordError("the header has no whole-number format_version")
    if version > FORMAT_VERSION or version < 1:
        raise RecordError(
            f"format_version {version} is not supported (this version reads 1 to "
            f"{FORMAT_VERSION}); update ltm-desktop"
        )


def project_record(project: Project) -> dict[str, Any]:
    return {
        "type": "project",
        "project_id": project.project_id,
        "path": project.path,
        "name": project.name,
        "created_at": project.created_at,
    }


def event_record(event: AuditEvent) -> dict[str, Any]:
    """An audit event as exported; its person and machine when it names them (events
    from before they were recorded export as they always did)."""
    record: dict[str, Any] = {
        "seq": event.seq,
        "at": event.at,
        "actor": event.actor,
        "action": event.action.value,
        "before": event.before,
        "after": event.after,
    }
    if event.person is not None:
        record |= {"person": event.person, "machine": event.machine}
        record["machine_id"] = event.machine_id
    return record


def memory_record(memory: Memory, history: list[AuditEvent] | None = None) -> dict[str, Any]:
    """Every field of ``memory`` as JSON-ready values."""
    values: dict[str, Any] = {
        "type": "memory",
        "id": memory.id,
        "project_id": memory.project_id,
        "title": memory.title,
        "content": memory.content,
        "category": memory.category.value,
        "importance": memory.importance,
        "tags": list(memory.tags),
        "created_at": memory.created_at,
        "updated_at": memory.updated_at,
        "last_used_at": memory.last_used_at,
        "use_count": memory.use_count,
        "ttl_days": memory.ttl_days,
        "disabled": memory.disabled,
        "disabled_at": memory.disabled_at,
        "source": memory.source,
        "superseded_by": memory.superseded_by,
        "reviewed_at": memory.reviewed_at,
        "review_state": None if memory.review_state is None else memory.review_state.value,
        "provenance": None if memory.provenance is None else memory.provenance.as_dict(),
    }
    if memory.files:  # relative to the project's directory (absent: none)
        values["files"] = list(memory.files)
    if history is not None:
        values["history"] = [event_record(e) for e in history]
    return values


def check_time(value: object, name: str) -> float:
    """``value`` as seconds since 1970, if it is a time from 1970 to ``MAX_TIME``."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise RecordError(f"{name} must be a number of seconds, not {rules.describe(value)}")
    if not 0 <= value <= MAX_TIME:
        raise RecordError(
            f"{name} must be seconds since 1970, from 0 to {MAX_TIME:,} (the year 2900); "
            f"got {echoed(value)}{' (milliseconds or nanoseconds?)' if value > MAX_TIME else ''}"
        )
    return float(value)


def _time(values: dict[str, Any], name: str, *, optional: bool = False) -> float | None:
    value = values.get(name)
    if value is None and optional:
        return None
    return check_time(value, name)


def _text(values: dict[str, Any], name: str, *, optional: bool = False) -> str | None:
    """A non-empty string that can be stored (no lone surrogate, no NUL)."""
    value = values.get(name)
    if value is None and optional:
        return None
    if not isinstance(value, str) or not value:
        raise RecordError(f"{name} must be a non-empty string, not {rules.describe(value)}")
    return rules.check_text(value, name)


def _count(values: dict[str, Any], name: str) -> int:
    value = values.get(name, 0)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_COUNT:
        raise RecordError(
            f"{name} must be a whole number from 0 to {MAX_COUNT:,}, not {rules.describe(value)}"
        )
    return value


def _provenance(value: object) -> Provenance | None:
    """Where an extracted memory came from: texts that can be stored, a time."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise RecordError("provenance must be an object or null")
    texts = {}
    for name in PROVENANCE_TEXTS:
        text = value.get(name, "")
        if not isinstance(text, str):
            raise RecordError(f"provenance.{name} must be a string, not {rules.describe(text)}")
        texts[name] = rules.check_text(text, f"provenance.{name}", allow_empty=True)
    extracted_at = check_time(value.get("extracted_at", 0.0), "provenance.extracted_at")
    return Provenance(**texts, extracted_at=extracted_at)


def memory_from_record(values: dict[str, Any]) -> Memory:
    """The memory a ``memory`` line describes; the editable fields pass the core's rules.

    The signature is recomputed from the content (never trusted from the file)."""
    draft = rules.validate_draft(
        MemoryDraft(
            content=values.get("content"),  # type: ignore[arg-type]  # checked by the rules
            title=values.get("title"),
            category=values.get("category"),  # type: ignore[arg-type]
            importance=values.get("importance"),
            tags=values.get("tags", []),
            ttl_days=values.get("ttl_days"),
            files=values.get("files") or [],
        )
    )
    use_count = _count(values, "use_count")
    disabled = values.get("disabled", False)
    if not isinstance(disabled, bool):
        raise RecordError(f"disabled must be true or false, not {rules.describe(disabled)}")
    state = values.get("review_state")
    try:
        review_state = None if state is None else ReviewState(state)
    except ValueError:
        raise RecordError(f"review_state {rules.describe(state)} is unknown") from None
    memory_id = _text(values, "id")
    assert memory_id is not None
    return Memory(
        id=memory_id,
        project_id=rules.check_project_id(values.get("project_id")),
        title=str(draft.title),
        content=draft.content,
        category=rules.check_category(draft.category),
        importance=0 if draft.importance is None else draft.importance,  # validated: set
        tags=tuple(draft.tags),
        files=tuple(draft.files),
        signature=rules.content_signature(draft.content),
        created_at=_time(values, "created_at") or 0.0,
        updated_at=_time(values, "updated_at") or 0.0,
        last_used_at=_time(values, "last_used_at", optional=True),
        use_count=use_count,
        ttl_days=draft.ttl_days,
        disabled=disabled,
        source=_text(values, "source") or "import",
        superseded_by=_text(values, "superseded_by", optional=True),
        disabled_at=_time(values, "disabled_at", optional=True),
        reviewed_at=_time(values, "reviewed_at", optional=True),
        review_state=review_state,
        provenance=_provenance(values.get("provenance")),
    )


def project_from_record(values: dict[str, Any]) -> Project:
    path = _text(values, "path", optional=True)
    name = _text(values, "name")
    assert name is not None
    return Project(
        rules.check_project_id(values.get("project_id")),
        path,
        name,
        _time(values, "created_at") or 0.0,
    )

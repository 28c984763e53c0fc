"""The audit history's rows as every engine appends them: before/after as JSON text, and
each event linked to the one before it (``engine.chain``). One serialization for both
engines, so a history moved between them hashes, and so verifies, the same."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ltm_desktop.core.backend import AuditEntry
from ltm_desktop.engine.chain import link_after

# seq, at, memory_id, project_pk, actor, action, before, after, nonce, content_hash, hash,
# person, machine, machine_id
AuditRow = tuple[
    int,
    float,
    str,
    int,
    str,
    str,
    str | None,
    str | None,
    str,
    str,
    str,
    str | None,
    str | None,
    str | None,
]
COLUMNS = (
    "seq, at, memory_id, project_pk, actor, action, before, after, nonce, content_hash, hash, "
    "person, machine, machine_id"
)
WIDTH = 14  # values in a row


def values_json(values: dict[str, Any] | None) -> str | None:
    """An event's before or after as stored (None: NULL)."""
    return None if values is None else json.dumps(values, ensure_ascii=False)


def chained_rows(head: tuple[int, str], events: Sequence[tuple[int, AuditEntry]]) -> list[AuditRow]:
    """The rows of (scope pk, event) pairs in order, the first linked to ``head`` (the
    newest event's seq and hash, read once) and each later one to the one before it."""
    last = head
    rows: list[AuditRow] = []
    for project_pk, event in events:
        old, new = values_json(event.before), values_json(event.after)
        action = event.action.value
        who = (event.person, event.machine, event.machine_id)
        link = link_after(
            last, event.at, event.memory_id, project_pk, event.actor, action, old, new, who
        )
        rows.append(
            (
                link.seq,
                event.at,
                event.memory_id,
                project_pk,
                event.actor,
                action,
                old,
                new,
                link.nonce,
                link.content_hash,
                link.hash,
                event.person,
                event.machine,
                event.machine_id,
            )
        )
        last = (link.seq, link.hash)
    return rows

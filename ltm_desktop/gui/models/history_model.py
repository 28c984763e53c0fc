"""One memory's audit timeline: time, agent, action, which fields changed, and the person
and machine that made each change."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Qt

from ltm_desktop.core.records import AuditEvent
from ltm_desktop.gui.formatting import absolute_time, actor_label, person_label
from ltm_desktop.gui.models.base import RowTableModel

COL_TIME, COL_ACTOR, COL_ACTION, COL_FIELDS, COL_PERSON, COL_MACHINE = range(6)
HIDDEN_FIELDS = {"id", "project_id", "created_at", "updated_at", "source", "signature"}


def changed_field_names(event: AuditEvent) -> list[str]:
    if event.before is None:
        return []
    names = set(event.before) | set(event.after or {})
    return sorted(n for n in names if n not in HIDDEN_FIELDS)


class HistoryModel(RowTableModel):
    """Events oldest first, as the story of the memory reads."""

    COLUMNS = ("When", "Agent", "What", "Fields", "Person", "Machine")

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)

    def key(self, row: AuditEvent) -> int:
        return row.seq

    def memory_id(self, row: AuditEvent) -> str | None:
        return row.memory_id

    def cell(self, row: AuditEvent, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            if column == COL_TIME:
                return absolute_time(row.at, seconds=True)
            if column == COL_ACTOR:
                return row.actor
            if column == COL_ACTION:
                return row.action.value
            if column == COL_PERSON:
                return person_label(row.person)
            if column == COL_MACHINE:
                return row.machine or "—"
            return ", ".join(changed_field_names(row))
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == COL_ACTOR:
                return actor_label(row.actor)
            if column == COL_MACHINE and row.machine_id is not None:
                return f"{row.machine} (machine id {row.machine_id})"
        return None

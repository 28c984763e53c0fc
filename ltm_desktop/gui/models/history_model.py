"""One memory's audit timeline: time, actor, action and which fields changed."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Qt

from ltm_desktop.core.records import AuditEvent
from ltm_desktop.gui.formatting import absolute_time, actor_label
from ltm_desktop.gui.models.base import RowTableModel

COL_TIME, COL_ACTOR, COL_ACTION, COL_FIELDS = range(4)
HIDDEN_FIELDS = {"id", "project_id", "created_at", "updated_at", "source", "signature"}


def changed_field_names(event: AuditEvent) -> list[str]:
    if event.before is None:
        return []
    names = set(event.before) | set(event.after or {})
    return sorted(n for n in names if n not in HIDDEN_FIELDS)


class HistoryModel(RowTableModel):
    """Events oldest first, as the story of the memory reads."""

    COLUMNS = ("When", "Who", "What", "Fields")

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
            return ", ".join(changed_field_names(row))
        if role == Qt.ItemDataRole.ToolTipRole and column == COL_ACTOR:
            return actor_label(row.actor)
        return None

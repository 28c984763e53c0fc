"""Stale candidates of a scope with the reason each one qualifies."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Qt

from ltm_desktop.core.records import SECONDS_PER_DAY, Memory
from ltm_desktop.core.stale.named_files import MISSING_FILE
from ltm_desktop.gui.formatting import absolute_time
from ltm_desktop.gui.models.base import CENTER, RowTableModel
from ltm_desktop.gui.models.rows import MemoryRow

COL_TITLE, COL_IMPORTANCE, COL_USES, COL_AGE, COL_REASON, COL_PROJECT = range(6)


@dataclass(frozen=True, slots=True)
class StaleRow:
    memory: MemoryRow
    idle_days: int
    reason: str
    project: str = ""  # the scope's name (shown when every project is listed)

    @property
    def id(self) -> str:
        return self.memory.id


def stale_row(
    memory: Memory,
    now: float,
    max_importance: int,
    project: str = "",
    *,
    aged: bool = True,
    missing_files: tuple[str, ...] = (),
) -> StaleRow:
    """The row of a stale candidate: ``aged`` (old, unimportant, never used) and/or naming
    ``missing_files`` that no longer exist; ``project``: its scope's name, when every
    project is listed."""
    touched = max(memory.updated_at, memory.reviewed_at or 0)
    days = int((now - touched) // SECONDS_PER_DAY)
    uses = "never used" if memory.use_count == 0 else f"used {memory.use_count}×"
    reasons = []
    if missing_files:
        reasons.append(f"{MISSING_FILE}: {', '.join(missing_files)}")
    if aged:
        reasons.append(
            f"importance {memory.importance} (≤ {max_importance}), {uses}, "
            f"untouched for {days} days"
        )
    return StaleRow(MemoryRow.of(memory, now), days, "; ".join(reasons), project)


class StaleModel(RowTableModel):
    COLUMNS = ("Title", "Importance", "Uses", "Idle", "Why it is stale", "Project")

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)

    def cell(self, row: StaleRow, column: int, role: int) -> Any:
        memory = row.memory
        if role == Qt.ItemDataRole.DisplayRole:
            return [
                memory.title,
                str(memory.importance),
                str(memory.use_count),
                f"{row.idle_days} days",
                row.reason,
                row.project,
            ][column]
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == COL_AGE:
                return f"Last updated {absolute_time(memory.updated_at)}"
            if column == COL_REASON:
                return row.reason  # the whole of it, when the column is too narrow
            return memory.preview
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (COL_IMPORTANCE, COL_USES):
            return CENTER
        return None

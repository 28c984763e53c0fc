"""The Trash of a scope: removed, superseded and expired memories, with why and when."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Qt

from ltm_desktop.core.records import AuditAction, ListQuery, Memory
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.formatting import absolute_time, relative_time
from ltm_desktop.gui.models.paged import Fetcher
from ltm_desktop.gui.models.rows import MemoryRow
from ltm_desktop.gui.models.sparse import SparseTableModel
from ltm_desktop.gui.tasks import TaskRunner

COL_TITLE, COL_CATEGORY, COL_WHY, COL_WHEN, COL_BY = range(5)
SORT_KEYS = {COL_TITLE: "title", COL_CATEGORY: "category", COL_WHEN: "disabled_at"}


@dataclass(frozen=True, slots=True)
class TrashRow:
    memory: MemoryRow
    why: str
    actor: str

    @property
    def id(self) -> str:
        return self.memory.id


def explain_removals(service: MemoryService, memories: list[Memory]) -> list[tuple[str, str]]:
    """Why each memory is in the Trash and who put it there: two queries for a whole page."""
    events = service.history.removal_events([m.id for m in memories])
    newer = service.get_many([m.superseded_by for m in memories if m.superseded_by])
    out = []
    for memory in memories:
        last = events.get(memory.id)
        actor = last.actor if last else memory.source
        if memory.superseded_by:
            other = newer.get(memory.superseded_by)
            title = other.title if other else memory.superseded_by
            out.append((f"Superseded by “{title}”", actor))
        elif last is not None and last.action == AuditAction.EXPIRED:
            out.append((f"Expired (time to live: {memory.ttl_days} days)", actor))
        elif last is not None and last.action == AuditAction.REJECTED:
            out.append(("Rejected in the Inbox (extracted)", actor))
        else:
            out.append(("Removed", actor))
    return out


class TrashFetcher:
    def __init__(self, service: MemoryService, project_id: str, order_by: str, desc: bool) -> None:
        self._service = service
        self._project_id = project_id
        self._order_by = order_by
        self._descending = desc

    def _query(self, offset: int, limit: int) -> ListQuery:
        return ListQuery(
            only_disabled=True,
            include_expired=True,
            order_by=self._order_by,
            descending=self._descending,
            limit=limit,
            offset=offset,
        )

    def page(self, offset: int, limit: int, last: Any | None) -> tuple[list[TrashRow], bool]:
        found = self._service.list_memories(self._project_id, self._query(offset, limit))
        now = self._service.now()
        reasons = explain_removals(self._service, found)
        rows = [
            TrashRow(MemoryRow.of(memory, now), why, actor)
            for memory, (why, actor) in zip(found, reasons, strict=True)
        ]
        return rows, len(found) == limit

    def total(self) -> int:
        return self._service.count_memories(self._project_id, self._query(0, 1))


class TrashModel(SparseTableModel):
    """Everything soft-deleted in one scope, newest removal first: random access, like the
    memory list (the count up front, pages read where the view is)."""

    COLUMNS = ("Title", "Category", "Why", "Removed", "By")

    def __init__(
        self,
        service: MemoryService,
        runner: TaskRunner,
        parent: QObject | None = None,
        **paging: int,
    ) -> None:
        super().__init__(runner, parent, **paging)
        self._service = service
        self.project_id: str | None = None
        self.order_by = "disabled_at"
        self.descending = True

    def make_fetcher(self) -> Fetcher | None:
        if self.project_id is None:
            return None
        return TrashFetcher(self._service, self.project_id, self.order_by, self.descending)

    def set_project(self, project_id: str | None) -> None:
        if project_id != self.project_id:
            self.project_id = project_id
            self.reload()

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if column in SORT_KEYS:
            self.order_by = SORT_KEYS[column]
            self.descending = order == Qt.SortOrder.DescendingOrder
            self.reload()

    def cell(self, row: TrashRow, column: int, role: int) -> Any:
        memory = row.memory
        if role == Qt.ItemDataRole.DisplayRole:
            if column == COL_TITLE:
                return memory.title
            if column == COL_CATEGORY:
                return memory.category
            if column == COL_WHY:
                return row.why
            if column == COL_WHEN:
                return relative_time(memory.disabled_at, self._service.now())
            return row.actor
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == COL_WHEN:
                return absolute_time(memory.disabled_at)
            return memory.preview
        return None

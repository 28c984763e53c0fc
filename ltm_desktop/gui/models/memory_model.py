"""The memory table: a scope's memories read by page where the view is, sorted and filtered by query."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QFont

from ltm_desktop.core.offline_view import cached_list, online_or_cached
from ltm_desktop.core.records import ListQuery, Memory
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui import theme
from ltm_desktop.gui.formatting import absolute_time, machine_label, relative_time, tags_text
from ltm_desktop.gui.models.base import CENTER, RIGHT
from ltm_desktop.gui.models.paged import Fetcher
from ltm_desktop.gui.models.rows import MemoryRow
from ltm_desktop.gui.models.sparse import SparseTableModel
from ltm_desktop.gui.tasks import TaskRunner

COL_TITLE, COL_CATEGORY, COL_IMPORTANCE, COL_TAGS, COL_UPDATED, COL_USES, COL_SOURCE = range(7)
# column -> the service's order_by (None: not sortable)
SORT_KEYS: dict[int, str | None] = {
    COL_TITLE: "title",
    COL_CATEGORY: "category",
    COL_IMPORTANCE: "importance",
    COL_TAGS: None,
    COL_UPDATED: "updated_at",
    COL_USES: "use_count",
    COL_SOURCE: "source",
}


@dataclass(frozen=True, slots=True)
class MemoryQuery:
    """What the table shows: a scope, its filters and its order."""

    project_id: str | None = None
    category: str | None = None
    tag: str | None = None
    include_disabled: bool = False
    include_expired: bool = False
    new_since: float | None = None  # only what agents added since (the "New" filter)
    order_by: str = "importance"
    descending: bool = True

    def list_query(self, offset: int, limit: int) -> ListQuery:
        return ListQuery(
            category=self.category,
            tag=self.tag,
            include_disabled=self.include_disabled,
            include_expired=self.include_expired,
            new_since=self.new_since,
            order_by=self.order_by,
            descending=self.descending,
            limit=limit,
            offset=offset,
        )


class MemoryFetcher:
    """Pages of ``MemoryRow`` for one ``MemoryQuery`` (runs on a worker)."""

    def __init__(self, service: MemoryService, query: MemoryQuery, project_id: str) -> None:
        self._service = service
        self._query = query
        self._project_id = project_id

    def page(self, offset: int, limit: int, last: Any | None) -> tuple[list[MemoryRow], bool]:
        """A page of the list; while the shared database cannot be reached, of this
        machine's read cache with the changes waiting in the outbox applied."""
        now = self._service.now()

        def cached() -> tuple[list[MemoryRow], bool]:
            found = self._cached(now)
            rows = [MemoryRow.of(m, now) for m in found[offset : offset + limit]]
            return rows, offset + limit < len(found)

        return online_or_cached(
            self._service.offline, lambda: self._page(offset, limit, now), cached
        )

    def _page(self, offset: int, limit: int, now: float) -> tuple[list[MemoryRow], bool]:
        found = self._service.list_memories(self._project_id, self._query.list_query(offset, limit))
        rows = [MemoryRow.of(m, now) for m in found]
        if self._query.new_since is not None and rows:  # "New": from which machine, too
            made = self._service.history.creation_events([row.id for row in rows])
            rows = [
                replace(row, person=made[row.id].person, machine=made[row.id].machine)
                if row.id in made
                else row
                for row in rows
            ]
        return rows, len(found) == limit

    def total(self) -> int:
        return online_or_cached(
            self._service.offline,
            lambda: self._service.count_memories(self._project_id, self._query.list_query(0, 1)),
            lambda: len(self._cached(self._service.now())),
        )

    def _cached(self, now: float) -> list[Memory]:
        query = self._query.list_query(0, 0)
        return cached_list(self._service.offline, self._project_id, query, now)


class MemoryTableModel(SparseTableModel):
    """Memories of one scope; removed and expired ones (when shown) are visibly marked."""

    COLUMNS = ("Title", "Category", "Importance", "Tags", "Updated", "Uses", "Source")

    def __init__(
        self,
        service: MemoryService,
        runner: TaskRunner,
        parent: QObject | None = None,
        **paging: int,
    ) -> None:
        super().__init__(runner, parent, **paging)
        self._service = service
        self.query = MemoryQuery()
        self._now = service.now()

    def make_fetcher(self) -> Fetcher | None:
        self._now = self._service.now()
        if self.query.project_id is None:
            return None
        return MemoryFetcher(self._service, self.query, self.query.project_id)

    def refresh(self) -> None:
        self._now = self._service.now()  # "updated 5 min ago" moves on with each refresh
        super().refresh()

    def set_query(self, query: MemoryQuery) -> None:
        if query != self.query:
            self.query = query
            self.reload()

    def update_query(self, **changes: Any) -> None:
        self.set_query(replace(self.query, **changes))

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        order_by = SORT_KEYS.get(column)
        if order_by is not None:
            self.update_query(order_by=order_by, descending=order == Qt.SortOrder.DescendingOrder)

    def sort_column(self) -> int:
        return next((c for c, k in SORT_KEYS.items() if k == self.query.order_by), COL_IMPORTANCE)

    def cell(self, row: MemoryRow, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(row, column)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(row, column)
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (COL_IMPORTANCE, COL_USES):
            return RIGHT if column == COL_USES else CENTER
        if role == Qt.ItemDataRole.FontRole and (row.disabled or row.expired):
            font = QFont()
            font.setStrikeOut(row.disabled)
            font.setItalic(row.expired)
            return font
        if role == Qt.ItemDataRole.ForegroundRole and (row.disabled or row.expired):
            return theme.muted_color()
        return None

    def _display(self, row: MemoryRow, column: int) -> str:
        if column == COL_TITLE:
            if row.disabled:
                return f"{row.title}  [removed]"
            if row.expired:
                return f"{row.title}  [expired]"
            return f"⚠ {row.title}  [flagged]" if row.flagged else row.title
        if column == COL_CATEGORY:
            return row.category
        if column == COL_IMPORTANCE:
            return str(row.importance)
        if column == COL_TAGS:
            return tags_text(row.tags)
        if column == COL_UPDATED:
            return relative_time(row.updated_at, self._now)
        if column == COL_USES:
            return str(row.use_count)
        return machine_label(row.source, row.machine)

    def _tooltip(self, row: MemoryRow, column: int) -> str:
        if column == COL_UPDATED:
            return (
                f"Updated {absolute_time(row.updated_at)}; created {absolute_time(row.created_at)}"
            )
        if column == COL_USES:
            return f"Found by agents {row.use_count} times; last {relative_time(row.last_used_at, self._now)}"
        if column == COL_SOURCE and row.person is not None:
            return f"Added by {row.source} for {row.person} on {row.machine}"
        state = ""
        if row.disabled:
            state = f"In the Trash since {absolute_time(row.disabled_at)}.\n\n"
        elif row.expired:
            state = "Expired: its time to live has run out; agents no longer see it.\n\n"
        elif row.flagged:
            state = f"Flagged: it {row.flagged}. Out of MEMORY.md until approved in the Inbox.\n\n"
        title = f"{row.title}\n\n" if column == COL_TITLE and row.title else ""
        return title + state + row.preview

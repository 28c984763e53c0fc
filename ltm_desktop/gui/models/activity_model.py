"""A scope's recent activity across memories, newest first, filterable by actor."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Qt

from ltm_desktop.core.records import AuditEvent
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.formatting import absolute_time, relative_time
from ltm_desktop.gui.models.history_model import changed_field_names
from ltm_desktop.gui.models.paged import Fetcher, PagedTableModel
from ltm_desktop.gui.tasks import TaskRunner

COL_TIME, COL_ACTOR, COL_ACTION, COL_TITLE, COL_FIELDS = range(5)


@dataclass(frozen=True, slots=True)
class ActivityRow:
    event: AuditEvent
    title: str

    @property
    def seq(self) -> int:
        return self.event.seq


class ActivityFetcher:
    """Pages by ``before_seq`` (keyset): cheap at any depth."""

    def __init__(self, service: MemoryService, project_id: str, actor: str | None) -> None:
        self._service = service
        self._project_id = project_id
        self._actor = actor
        self._titles: dict[str, str] = {}

    def page(self, offset: int, limit: int, last: Any | None) -> tuple[list[ActivityRow], bool]:
        before = last.seq if isinstance(last, ActivityRow) else None
        events = self._service.project_history(
            self._project_id, limit=limit, before_seq=before, actor=self._actor
        )
        recorded = [(e, _recorded_title(e)) for e in events]
        missing = {e.memory_id for e, t in recorded if t is None} - set(self._titles)
        if missing:  # one query for the titles this page's events do not carry themselves
            found = self._service.get_many(sorted(missing))
            self._titles.update({i: found[i].title if i in found else i for i in missing})
        rows = [
            ActivityRow(e, t if t is not None else self._titles[e.memory_id]) for e, t in recorded
        ]
        return rows, len(events) == limit

    def total(self) -> None:
        return None


def _recorded_title(event: AuditEvent) -> str | None:
    """The title the event itself holds (it changed, or the memory was created)."""
    for values in (event.after, event.before):
        if values and isinstance(values.get("title"), str):
            return values["title"]
    return None


class ActivityModel(PagedTableModel):
    COLUMNS = ("When", "Who", "What", "Memory", "Fields")

    def __init__(
        self, service: MemoryService, runner: TaskRunner, parent: QObject | None = None
    ) -> None:
        super().__init__(runner, parent)
        self._service = service
        self.project_id: str | None = None
        self.actor: str | None = None

    def key(self, row: ActivityRow) -> int:
        return row.seq

    def memory_id(self, row: ActivityRow) -> str | None:
        return row.event.memory_id

    def make_fetcher(self) -> Fetcher | None:
        if self.project_id is None:
            return None
        return ActivityFetcher(self._service, self.project_id, self.actor)

    def set_filter(self, project_id: str | None, actor: str | None) -> None:
        if (project_id, actor) != (self.project_id, self.actor):
            self.project_id, self.actor = project_id, actor
            self.reload()

    def cell(self, row: ActivityRow, column: int, role: int) -> Any:
        event = row.event
        if role == Qt.ItemDataRole.DisplayRole:
            if column == COL_TIME:
                return relative_time(event.at, self._service.now())
            if column == COL_ACTOR:
                return event.actor
            if column == COL_ACTION:
                return event.action.value
            if column == COL_TITLE:
                return row.title
            return ", ".join(changed_field_names(event))
        if role == Qt.ItemDataRole.ToolTipRole and column == COL_TIME:
            return absolute_time(event.at)
        return None

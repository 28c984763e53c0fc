"""A scope's recent activity across memories, newest first, filterable by agent and by
person, each event naming its person and machine."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Qt

from ltm_desktop.core.records import AuditEvent
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.formatting import absolute_time, person_label, relative_time
from ltm_desktop.gui.models.history_model import changed_field_names
from ltm_desktop.gui.models.paged import Fetcher
from ltm_desktop.gui.models.sparse import SparseTableModel
from ltm_desktop.gui.tasks import TaskRunner

COL_TIME, COL_ACTOR, COL_ACTION, COL_TITLE, COL_FIELDS, COL_PERSON, COL_MACHINE = range(7)


@dataclass(frozen=True, slots=True)
class ActivityRow:
    event: AuditEvent
    title: str

    @property
    def seq(self) -> int:
        return self.event.seq


class ActivityFetcher:
    """Pages at any offset (the store finds a far page's events by index) and their count."""

    def __init__(
        self,
        service: MemoryService,
        project_id: str,
        actor: str | None,
        person: str | None = None,
    ) -> None:
        self._service = service
        self._project_id = project_id
        self._actor = actor
        self._person = person
        self.actors: list[str] = []  # every agent in the scope's history, read with the count
        self.people: list[str] = []  # every person in it, likewise

    def page(self, offset: int, limit: int, last: Any | None) -> tuple[list[ActivityRow], bool]:
        events = self._service.history.project(
            self._project_id, limit=limit, offset=offset, actor=self._actor, person=self._person
        )
        recorded = [(e, _recorded_title(e)) for e in events]
        missing = sorted({e.memory_id for e, t in recorded if t is None})
        found = self._service.get_many(missing) if missing else {}  # one query for the page
        titles = {i: found[i].title if i in found else i for i in missing}
        rows = [ActivityRow(e, t if t is not None else titles[e.memory_id]) for e, t in recorded]
        return rows, len(events) == limit

    def total(self) -> int:
        self.actors = self._service.history.actors(self._project_id)
        self.people = self._service.history.people(self._project_id)
        return self._service.history.count_project(
            self._project_id, actor=self._actor, person=self._person
        )


def _recorded_title(event: AuditEvent) -> str | None:
    """The title the event itself holds (it changed, or the memory was created)."""
    for values in (event.after, event.before):
        if values and isinstance(values.get("title"), str):
            return values["title"]
    return None


class ActivityModel(SparseTableModel):
    """The scope's events, newest first: random access, like the memory list (the count up
    front, pages read where the view is)."""

    COLUMNS = ("When", "Agent", "What", "Memory", "Fields", "Person", "Machine")

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
        self.actor: str | None = None
        self.person: str | None = None

    def key(self, row: ActivityRow) -> int:
        return row.seq

    def memory_id(self, row: ActivityRow) -> str | None:
        return row.event.memory_id

    def make_fetcher(self) -> Fetcher | None:
        if self.project_id is None:
            return None
        return ActivityFetcher(self._service, self.project_id, self.actor, self.person)

    def actors(self) -> list[str]:
        """Everyone with an event in the scope, as of the last count (the filter's choices)."""
        fetcher = self._fetcher
        return list(fetcher.actors) if isinstance(fetcher, ActivityFetcher) else []

    def people(self) -> list[str]:
        """Every person with an event in the scope, as of the last count (the filter's)."""
        fetcher = self._fetcher
        return list(fetcher.people) if isinstance(fetcher, ActivityFetcher) else []

    def set_filter(
        self, project_id: str | None, actor: str | None, person: str | None = None
    ) -> None:
        if (project_id, actor, person) != (self.project_id, self.actor, self.person):
            self.project_id, self.actor, self.person = project_id, actor, person
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
            if column == COL_PERSON:
                return person_label(event.person)
            if column == COL_MACHINE:
                return event.machine or "—"
            return ", ".join(changed_field_names(event))
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == COL_TIME:
                return absolute_time(event.at)
            if column == COL_MACHINE and event.machine_id is not None:
                return f"{event.machine} (machine id {event.machine_id})"
        return None

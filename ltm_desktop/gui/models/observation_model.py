"""Agent lifecycle observations of a scope, newest first; by session, or found by a search."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Qt

from ltm_desktop.core.records import Observation
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.formatting import absolute_time, plain_snippet, relative_time
from ltm_desktop.gui.models.paged import Fetcher
from ltm_desktop.gui.models.sparse import SparseTableModel
from ltm_desktop.gui.tasks import TaskRunner

COL_TIME, COL_SESSION, COL_KIND, COL_TITLE, COL_SOURCE = range(5)
RECALL_LIMIT = 100


@dataclass(frozen=True, slots=True)
class ObservationRow:
    observation: Observation
    snippet: str = ""

    @property
    def id(self) -> str:
        return self.observation.id


class ObservationFetcher:
    """Pages at any offset of the scope's observations (of one session) and their count,
    filtered by the store; or the observations a search finds (at most ``RECALL_LIMIT``)."""

    def __init__(
        self, service: MemoryService, project_id: str, session: str | None, text: str
    ) -> None:
        self._service = service
        self._project_id = project_id
        self._session = session
        self._text = text.strip()

    def page(self, offset: int, limit: int, last: Any | None) -> tuple[list[ObservationRow], bool]:
        if self._text:
            return self._recall()[offset : offset + limit], False
        found = self._service.observations.page(
            self._project_id, limit=limit, offset=offset, session=self._session
        )
        return [ObservationRow(o) for o in found], len(found) == limit

    def _recall(self) -> list[ObservationRow]:
        hits = self._service.search.recall(
            self._project_id,
            self._text,
            kinds=["observation"],
            limit=RECALL_LIMIT,
            include_global=False,
            reinforce=False,
        )
        rows = [ObservationRow(h.observation, h.snippet) for h in hits if h.observation is not None]
        return [
            r for r in rows if self._session is None or r.observation.session_id == self._session
        ]

    def total(self) -> int:
        if self._text:  # one full-text query of at most RECALL_LIMIT hits: cheap to repeat
            return len(self._recall())
        return self._service.observations.count(self._project_id, session=self._session)


class ObservationModel(SparseTableModel):
    """The scope's observations, newest first: random access, like the memory list (the
    count up front, pages read where the view is)."""

    COLUMNS = ("When", "Session", "Kind", "Title", "Agent")

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
        self.session: str | None = None
        self.text = ""

    def memory_id(self, row: Any) -> str | None:
        return None

    def make_fetcher(self) -> Fetcher | None:
        if self.project_id is None:
            return None
        return ObservationFetcher(self._service, self.project_id, self.session, self.text)

    def set_filter(self, project_id: str | None, session: str | None, text: str) -> None:
        if (project_id, session, text) != (self.project_id, self.session, self.text):
            self.project_id, self.session, self.text = project_id, session, text
            self.reload()

    def cell(self, row: ObservationRow, column: int, role: int) -> Any:
        observation = row.observation
        if role == Qt.ItemDataRole.DisplayRole:
            if column == COL_TIME:
                return relative_time(observation.created_at, self._service.now())
            if column == COL_SESSION:
                return observation.session_id
            if column == COL_KIND:
                return observation.kind.value.replace("_", " ")
            if column == COL_TITLE:
                return observation.title
            return observation.source
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == COL_TIME:
                return absolute_time(observation.created_at)
            return plain_snippet(row.snippet) if row.snippet else observation.narrative[:400]
        return None

"""Agent lifecycle observations of a scope, newest first; by session, or found by a search."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Qt

from ltm_desktop.core.records import Observation
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.formatting import absolute_time, plain_snippet, relative_time
from ltm_desktop.gui.models.paged import Fetcher, PagedTableModel
from ltm_desktop.gui.tasks import TaskRunner

COL_TIME, COL_SESSION, COL_KIND, COL_TITLE, COL_SOURCE = range(5)
SCAN_LIMIT = 5_000  # raw observations read per page when filtering by session
RECALL_LIMIT = 100


@dataclass(frozen=True, slots=True)
class ObservationRow:
    observation: Observation
    raw_index: int  # position in the unfiltered, newest-first list (the paging cursor)
    snippet: str = ""

    @property
    def id(self) -> str:
        return self.observation.id


class ObservationFetcher:
    def __init__(
        self, service: MemoryService, project_id: str, session: str | None, text: str
    ) -> None:
        self._service = service
        self._project_id = project_id
        self._session = session
        self._text = text.strip()

    def page(self, offset: int, limit: int, last: Any | None) -> tuple[list[ObservationRow], bool]:
        if self._text:
            return self._recall(offset), False
        start = last.raw_index + 1 if isinstance(last, ObservationRow) else 0
        rows: list[ObservationRow] = []
        scanned = 0
        while len(rows) < limit and scanned < SCAN_LIMIT:
            want = limit if self._session is None else min(1000, SCAN_LIMIT - scanned)
            found = self._service.observations(self._project_id, limit=want, offset=start + scanned)
            for i, observation in enumerate(found):
                if self._session is None or observation.session_id == self._session:
                    rows.append(ObservationRow(observation, start + scanned + i))
            scanned += len(found)
            if len(found) < want:
                return rows[:limit], False
        return rows[:limit], True

    def _recall(self, offset: int) -> list[ObservationRow]:
        if offset:
            return []
        hits = self._service.recall(
            self._project_id,
            self._text,
            kinds=["observation"],
            limit=RECALL_LIMIT,
            include_global=False,
            reinforce=False,
        )
        rows = [
            ObservationRow(h.observation, i, h.snippet)
            for i, h in enumerate(hits)
            if h.observation is not None
        ]
        return [
            r for r in rows if self._session is None or r.observation.session_id == self._session
        ]

    def total(self) -> None:
        return None


class ObservationModel(PagedTableModel):
    COLUMNS = ("When", "Session", "Kind", "Title", "Agent")

    def __init__(
        self, service: MemoryService, runner: TaskRunner, parent: QObject | None = None
    ) -> None:
        super().__init__(runner, parent)
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

    def sessions(self) -> list[str]:
        """Sessions seen in the loaded rows, newest first."""
        seen: dict[str, None] = {}
        for row in self._rows:
            seen.setdefault(row.observation.session_id, None)
        return list(seen)

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

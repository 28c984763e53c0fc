"""Search results: ranked hits with the matched words highlighted; latest query wins."""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal

from ltm_desktop.core.projects.ambient import PERSON_PREFIX
from ltm_desktop.core.records import (
    GLOBAL_PROJECT_ID,
    MATCHED_MEANING,
    MATCHED_SOME,
    MATCHED_WORDS,
    SearchFilter,
    SearchHit,
)
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.formatting import (
    highlight_html,
    marked_terms,
    plain_snippet,
    snippet_html,
    tags_text,
)
from ltm_desktop.gui.models.base import CENTER, HtmlRole, RowTableModel
from ltm_desktop.gui.models.rows import MemoryRow
from ltm_desktop.gui.tasks import TaskRunner

COL_RANK, COL_TITLE, COL_MATCH, COL_CATEGORY, COL_IMPORTANCE, COL_TAGS, COL_SCOPE = range(7)
SEARCH_LIMIT = 100


@dataclass(frozen=True, slots=True)
class HitRow:
    memory: MemoryRow
    rank: int
    score: float
    snippet: str
    title_html: str
    matched: str = MATCHED_WORDS  # why it matched: words, some words, or meaning

    @property
    def id(self) -> str:
        return self.memory.id


class SearchResultsModel(RowTableModel):
    """The hits of the latest query typed in the search field.

    Signals:
        searched(str, int): results for this text arrived (how many) and are in the model.
        search_failed(object): the search raised this.
    """

    COLUMNS = ("#", "Title", "Match", "Category", "Importance", "Tags", "Scope")
    searched = Signal(str, int)
    search_failed = Signal(object)

    def __init__(
        self, service: MemoryService, runner: TaskRunner, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._service = service
        self._runner = runner
        self.text = ""
        self.project_id: str | None = None
        self.include_global = True
        self.where = SearchFilter()
        self.pending = False

    def set_filter(self, where: SearchFilter) -> None:
        """Narrow (or widen) the hits to the list's filters, searching again if needed."""
        if where != self.where:
            self.where = where
            self.rerun()

    def search(self, project_id: str | None, text: str, include_global: bool = True) -> None:
        """Run the search on a worker; a newer call supersedes this one."""
        self.text, self.project_id, self.include_global = text, project_id, include_global
        if project_id is None or not text.strip():
            self._runner.cancel("search")
            self.pending = False
            self.set_rows([])
            return
        self.pending = True
        service, where = self._service, self.where

        def work() -> list[HitRow]:
            hits = service.search.query(
                project_id,
                text,
                limit=SEARCH_LIMIT,
                include_global=include_global,
                reinforce=False,  # a person browsing is not an agent using a memory
                typing=True,
                where=where,
            )
            return _rows(hits, service.now())

        self._runner.run(
            work, lambda rows: self._on_results(text, rows), self._on_failed, key="search"
        )

    def rerun(self) -> None:
        if self.text.strip():
            self.search(self.project_id, self.text, self.include_global)

    def _on_results(self, text: str, rows: list[HitRow]) -> None:
        self.pending = False
        self.set_rows(rows)
        self.searched.emit(text, len(rows))

    def _on_failed(self, exc: BaseException) -> None:
        self.pending = False
        self.search_failed.emit(exc)

    def cell(self, row: HitRow, column: int, role: int) -> Any:
        memory = row.memory
        if role == Qt.ItemDataRole.DisplayRole:  # only the asked column: paints ask often
            if column == COL_MATCH:
                return _why(row) + plain_snippet(row.snippet)
            if column == COL_TAGS:
                return tags_text(memory.tags)
            if column == COL_SCOPE:
                ambient = memory.project_id == GLOBAL_PROJECT_ID  # the team's, or a person's
                ambient = ambient or memory.project_id.startswith(PERSON_PREFIX)
                return "global" if ambient else "project"
            return (str(row.rank), memory.title, "", memory.category, str(memory.importance))[
                column
            ]
        if role == HtmlRole:
            if column == COL_TITLE:
                if memory.disabled:  # in the Trash (the Removed filter is on)
                    return f"<s>{row.title_html}</s>"
                return f"<i>{row.title_html}</i>" if memory.expired else row.title_html
            if column == COL_MATCH:
                return html.escape(_why(row)) + snippet_html(row.snippet)
            return None
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == COL_RANK:
                return f"Relevance score {row.score:.2f} (higher is better)"
            if column == COL_MATCH:
                return WHY[row.matched]
            return memory.preview
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (COL_RANK, COL_IMPORTANCE):
            return CENTER
        return None


WHY = {
    MATCHED_WORDS: "It holds every word you typed (highlighted).",
    MATCHED_SOME: "It holds some of the words you typed (highlighted).",
    MATCHED_MEANING: "Similar meaning: it holds none of the words you typed.",
}


def _why(row: HitRow) -> str:
    """The Match column's lead: a hit found by meaning alone says so (no word to mark)."""
    return "similar meaning — " if row.matched == MATCHED_MEANING else ""


def _rows(hits: list[SearchHit], now: float) -> list[HitRow]:
    rows = []
    for rank, hit in enumerate(hits, start=1):
        terms = marked_terms(hit.snippet)
        rows.append(
            HitRow(
                MemoryRow.of(hit.memory, now),
                rank,
                hit.score,
                hit.snippet,
                highlight_html(hit.memory.title, terms),
                hit.matched,
            )
        )
    return rows

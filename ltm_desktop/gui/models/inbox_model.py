"""What waits in the inbox: proposals and unreviewed memories, each with its provenance
and the existing memory most like it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Qt

from ltm_desktop.core.inbox.proposals import InboxEntry
from ltm_desktop.core.privacy.injection import flag_reason
from ltm_desktop.core.records import Provenance
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.formatting import absolute_time, relative_time
from ltm_desktop.gui.models.base import RowTableModel

COL_KIND, COL_TITLE, COL_PROJECT, COL_FROM, COL_WHEN, COL_SIMILAR = range(6)
MAX_ITEMS = 500
NO_PROVENANCE = Provenance("", "", "", "", "", 0.0)


@dataclass(frozen=True, slots=True)
class InboxRow:
    """One item as the table shows it; ``version`` is what a decision on it names."""

    id: str
    kind: str  # "proposal" or "memory"
    title: str
    content: str
    category: str
    importance: int
    tags: tuple[str, ...]
    ttl_days: int | None
    project_id: str
    project: str
    provenance: Provenance
    version: float
    similar_id: str | None
    similar_title: str
    similar_content: str
    similarity: float
    flagged: str | None = None  # why it reads like an instruction to the model
    # a merge: (id, title) of each memory approving it supersedes (an erased one is left out)
    merges: tuple[tuple[str, str], ...] = ()
    merge_count: int = 0  # how many it names, erased or not

    @property
    def is_merge(self) -> bool:
        return self.merge_count > 0

    @classmethod
    def of(cls, entry: InboxEntry, projects: dict[str, str]) -> InboxRow:
        item = entry.proposal or entry.memory
        assert item is not None
        # a memory an agent wrote itself (one flagged, say) has no extraction behind it:
        # its writer and when it was written stand in for them
        provenance = item.provenance or Provenance("", item.source, "", "", "", item.created_at)
        similar = entry.similar
        return cls(
            id=item.id,
            kind=entry.kind,
            title=item.title,
            content=item.content,
            category=item.category.value,
            importance=item.importance,
            tags=item.tags,
            ttl_days=item.ttl_days,
            project_id=item.project_id,
            project=projects.get(item.project_id, item.project_id),
            provenance=provenance,
            version=item.updated_at,
            similar_id=similar.id if similar else None,
            similar_title=similar.title if similar else "",
            similar_content=similar.content if similar else "",
            similarity=entry.similarity if similar else 0.0,
            flagged=None if entry.memory is None else flag_reason(entry.memory),
            merges=tuple((m.id, m.title) for m in entry.members),
            merge_count=len(entry.proposal.merges) if entry.proposal is not None else 0,
        )


def load_inbox(service: MemoryService) -> tuple[list[InboxRow], int]:
    """Every scope's waiting items (at most MAX_ITEMS), and how many wait in all."""
    projects = {p.project_id: p.name for p, _ in service.projects()}
    entries = service.inbox.entries(limit=MAX_ITEMS)
    return [InboxRow.of(e, projects) for e in entries], service.inbox.count()


class InboxModel(RowTableModel):
    COLUMNS = ("", "Title", "Project", "From", "When", "Most similar memory")

    def __init__(self, service: MemoryService, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._service = service

    def cell(self, row: InboxRow, column: int, role: int) -> Any:
        provenance = row.provenance
        if role == Qt.ItemDataRole.DisplayRole:
            if column == COL_KIND:
                if row.flagged:
                    return "⚠ Flagged"
                if row.is_merge:
                    return f"Merge of {row.merge_count}"
                return "Proposal" if row.kind == "proposal" else "Unreviewed"
            if column == COL_TITLE:
                return row.title
            if column == COL_PROJECT:
                return row.project
            if column == COL_FROM:
                return provenance.agent
            if column == COL_WHEN:
                return relative_time(provenance.extracted_at or None, self._service.now())
            if row.is_merge:
                return f"Merges {row.merge_count} memories"
            if row.similar_id is None:
                return "—"
            return f"{row.similarity:.0%} “{row.similar_title}”"
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == COL_WHEN:
                return absolute_time(provenance.extracted_at or None)
            if column == COL_FROM:
                if not provenance.model:
                    return f"written by {provenance.agent}" if provenance.agent else None
                return f"session {provenance.session_id}, extracted by {provenance.model}"
            if column == COL_SIMILAR and row.similar_id is not None:
                return row.similar_content
            if column in (COL_KIND, COL_SIMILAR) and row.is_merge:
                titles = "\n".join(f"• {title}" for _id, title in row.merges)
                return f"Approving it adds this memory and replaces these:\n{titles}"
            if column == COL_KIND and row.flagged:
                return f"Flagged: it {row.flagged}. Kept out of MEMORY.md until you approve it"
            if column == COL_KIND:
                return (
                    "Held for your review: not searchable, not in MEMORY.md until approved"
                    if row.kind == "proposal"
                    else "Added by the extractor; approve to keep it, reject to remove it"
                )
            return row.content
        return None

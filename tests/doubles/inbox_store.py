"""The in-memory backend's review inbox and extraction runs (mixed into ``memory_store``).

Storage only, like the rest of the double: lists and scans, no decisions.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from ltm_desktop.core.errors import NotFound, echoed
from ltm_desktop.core.inbox.proposals import ExtractionRun, Proposal, ProposalState
from ltm_desktop.core.records import Memory, Project
from tests.doubles.queries import is_live

if TYPE_CHECKING:
    from tests.doubles.memory_store import Tables


class InboxTxn:
    """``WriteTxn``'s inbox primitives over the tables of one write."""

    _t: Tables

    def _ensure_scope(self, project_id: str, now: float) -> None:
        if project_id not in self._t.projects:
            self._t.projects[project_id] = Project(project_id, None, project_id, now)

    def get_proposal(self, proposal_id: str) -> Proposal:
        proposal = self._t.proposals.get(proposal_id)
        if proposal is None:
            raise NotFound(f"no proposal has the id {echoed(proposal_id)}")
        return proposal

    def pending_proposal(self, project_id: str, signature: str) -> Proposal | None:
        return next(
            (
                p
                for p in self._t.proposals.values()
                if p.project_id == project_id
                and p.signature == signature
                and p.state is ProposalState.PROPOSED
            ),
            None,
        )

    def pending_merges(self, project_id: str) -> list[Proposal]:
        return [
            p
            for p in self._t.proposals.values()
            if p.project_id == project_id and p.merges and p.state is ProposalState.PROPOSED
        ]

    def insert_proposal(self, proposal: Proposal) -> None:
        if proposal.id in self._t.proposals:
            raise ValueError(f"UNIQUE constraint failed: proposals.id ({proposal.id})")
        self._ensure_scope(proposal.project_id, proposal.created_at)
        self._t.proposals[proposal.id] = proposal

    def save_proposal(self, before: Proposal, after: Proposal) -> None:
        if (after.id, after.project_id) != (before.id, self.get_proposal(before.id).project_id):
            raise ValueError(f"a proposal keeps its id and scope ({before.id})")
        self._t.proposals[after.id] = after

    def insert_run(self, run: ExtractionRun) -> None:
        self._ensure_scope(run.project_id, run.started_at)
        self._t.runs.append(run)


class InboxReads:
    """``MemoryStore``'s inbox reads over the shared tables."""

    _t: Tables
    _lock: threading.RLock

    def get_proposal(self, proposal_id: str) -> Proposal:
        with self._lock:
            proposal = self._t.proposals.get(proposal_id)
        if proposal is None:
            raise NotFound(f"no proposal has the id {echoed(proposal_id)}")
        return proposal

    def list_proposals(
        self, project_id: str | None, state: str, limit: int, offset: int
    ) -> list[Proposal]:
        with self._lock:
            found = [
                p
                for p in self._t.proposals.values()
                if p.state.value == state and project_id in (None, p.project_id)
            ]
        found = found[::-1]  # newest first, ties in reverse insertion order
        found.sort(key=lambda p: -p.created_at)
        return found[offset : offset + limit]

    def merge_proposals(self, project_id: str, state: str) -> list[Proposal]:
        return [p for p in self.list_proposals(project_id, state, 10**9, 0) if p.merges]

    def list_unreviewed(
        self, project_id: str | None, limit: int, offset: int, now: float
    ) -> list[Memory]:
        with self._lock:
            found = [
                m
                for m in self._t.memories.values()
                if m.review_state is not None
                and is_live(m, now)
                and project_id in (None, m.project_id)
            ]
        found = found[::-1]
        found.sort(key=lambda m: -m.created_at)
        return found[offset : offset + limit]

    def inbox_counts(self, now: float) -> dict[str, int]:
        counts: dict[str, int] = {}
        scopes = [p.project_id for p in self.list_proposals(None, "proposed", 10**9, 0)]
        scopes += [m.project_id for m in self.list_unreviewed(None, 10**9, 0, now)]
        for project_id in scopes:
            counts[project_id] = counts.get(project_id, 0) + 1
        return counts

    def list_runs(self, project_id: str | None, limit: int) -> list[ExtractionRun]:
        with self._lock:
            found = [r for r in self._t.runs if project_id in (None, r.project_id)]
        found = found[::-1]
        found.sort(key=lambda r: -r.started_at)
        return found[:limit]

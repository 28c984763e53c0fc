"""The review inbox and extraction runs: ``MemoryService.inbox``.

Reads list what waits for a person (proposals and unreviewed memories) with the most
similar existing memory of each; writes (approve, reject, reopen, storing a run) are
decided by ``core.inbox.reviewing`` inside one write of the kernel (``core.kernel``), like
any memory write.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from ltm_desktop.core import rules
from ltm_desktop.core.backend import MemoryStore
from ltm_desktop.core.consolidation import merge_review
from ltm_desktop.core.consolidation.merge_review import CONSOLIDATOR_ACTOR
from ltm_desktop.core.errors import InvalidInput
from ltm_desktop.core.inbox import proposing, reviewing
from ltm_desktop.core.inbox.extraction import EXTRACTOR_ACTOR, check_entries
from ltm_desktop.core.inbox.proposals import (
    Decision,
    ExtractionRun,
    InboxEntry,
    Proposal,
    ProposalState,
    RunStatus,
)
from ltm_desktop.core.inbox.review_steps import Outcome
from ltm_desktop.core.kernel import WriteKernel
from ltm_desktop.core.privacy.screening import Screen
from ltm_desktop.core.records import ChangeEvent, Memory, MemoryDraft, Provenance
from ltm_desktop.core.rules import jaccard, similarity_tokens
from ltm_desktop.core.search.query import parse_query
from ltm_desktop.core.versions import check_expected

MAX_INBOX = 500
SIMILAR_CANDIDATES = 10
MIN_SIMILARITY = 0.2  # below this a "most similar" memory only shares a word or two
MAX_REASON_CHARS = 500


class InboxService:
    """What waits for a person's review, and the decisions on it; every write through the
    kernel."""

    def __init__(self, store: MemoryStore, kernel: WriteKernel, screen: Screen) -> None:
        self.store = store
        self._kernel = kernel
        self._screen = screen
        self.now = kernel.now

    # -- reads ----------------------------------------------------------------

    def entries(self, project_id: str | None = None, *, limit: int = 200) -> list[InboxEntry]:
        """What waits for review, proposals first, newest first; each with the memory of
        its scope most like it (None when none shares at least MIN_SIMILARITY of its
        words)."""
        if project_id is not None:
            project_id = rules.check_project_id(project_id)
        limit = max(1, min(limit, MAX_INBOX))
        proposals = self.store.list_proposals(project_id, ProposalState.PROPOSED.value, limit, 0)
        unreviewed = self.store.list_unreviewed(project_id, limit - len(proposals), 0, self.now())
        entries = [self._proposal_entry(p) for p in proposals]
        entries += [
            InboxEntry(None, m, *self._most_similar(m.project_id, m.content, m.id))
            for m in unreviewed
        ]
        return entries

    def _proposal_entry(self, proposal: Proposal) -> InboxEntry:
        """A merge shows the memories it replaces (as stored now; an erased one is left
        out), not the memory most like it, which is one of them."""
        if not proposal.is_merge:
            return InboxEntry(
                proposal, None, *self._most_similar(proposal.project_id, proposal.content)
            )
        found = {m.id: m for m in self.store.get_memories([m.memory_id for m in proposal.merges])}
        members = tuple(found[m.memory_id] for m in proposal.merges if m.memory_id in found)
        return InboxEntry(proposal, None, members=members)

    def _most_similar(
        self, project_id: str, content: str, exclude: str | None = None
    ) -> tuple[Memory | None, float]:
        """The active memory of the scope most like ``content`` (token Jaccard, as the
        supersede rule measures it), among the best search hits for its words."""
        query = parse_query(content)
        if query.is_empty:
            return None, 0.0
        hits = self.store.search_memories([project_id], query, SIMILAR_CANDIDATES, self.now())
        tokens = similarity_tokens(content)
        best: tuple[Memory | None, float] = (None, 0.0)
        for memory, *_ in hits:
            if memory.id == exclude:
                continue
            score = jaccard(tokens, similarity_tokens(memory.content))
            if score >= MIN_SIMILARITY and score > best[1]:
                best = (memory, score)
        return best

    def counts(self) -> dict[str, int]:
        """Items waiting per scope."""
        return self.store.inbox_counts(self.now())

    def count(self) -> int:
        return sum(self.counts().values())

    def get(self, proposal_id: str) -> Proposal:
        """The proposal in whatever state (NotFound for an unknown id)."""
        return self.store.get_proposal(rules.check_text(proposal_id, "id"))

    def runs(self, project_id: str | None = None, limit: int = 50) -> list[ExtractionRun]:
        if project_id is not None:
            project_id = rules.check_project_id(project_id)
        return self.store.list_runs(project_id, max(1, min(limit, MAX_INBOX)))

    # -- decisions ------------------------------------------------------------

    def approve(
        self,
        item_id: str,
        actor: str,
        *,
        changes: dict[str, Any] | None = None,
        expected_updated_at: float | None = None,
        into: str | None = None,
    ) -> Decision:
        """Approve a proposal (added now, through dedup and supersede) or an unreviewed
        memory, after applying ``changes`` (the editable fields). ``expected_updated_at``
        is the item's ``updated_at`` the person saw (StaleEdit if it moved on); ``into``
        the scope a proposal's memory goes to (default: its own)."""
        if "files" in (changes or {}):
            raise InvalidInput("files cannot be set while approving; edit it afterwards", "files")
        clean = rules.validate_changes(changes or {})
        if into is not None:
            into = rules.check_project_id(into)
            self.store.get_project(into)  # NotFound for a scope that does not exist
        approve = functools.partial(reviewing.approve, screen=self._screen, into=into)
        return self._decide(approve, item_id, actor, expected_updated_at, clean)

    def reject(
        self, item_id: str, actor: str, *, expected_updated_at: float | None = None
    ) -> Decision:
        """Reject a proposal (kept, restorable with ``reopen``) or an unreviewed memory
        (moved to the Trash)."""
        return self._decide(reviewing.reject, item_id, actor, expected_updated_at)

    def reopen(
        self, item_id: str, actor: str, *, expected_updated_at: float | None = None
    ) -> Decision:
        """Undo an approval or a rejection: the item waits in the inbox again."""
        return self._decide(reviewing.reopen, item_id, actor, expected_updated_at)

    def _decide(
        self,
        decide: Callable[..., Outcome],
        item_id: str,
        actor: str,
        expected_updated_at: float | None,
        *extra: Any,
    ) -> Decision:
        actor = rules.check_actor(actor)
        item_id = rules.check_text(item_id, "id").strip()
        expected = check_expected(expected_updated_at)
        with self._kernel.write() as write:
            if extra:
                outcome = decide(write.txn, item_id, actor, write.now, *extra, expected)
            else:
                outcome = decide(write.txn, item_id, actor, write.now, expected)
            write.touch(outcome.memories)
            for item, action in outcome.events:
                write.announce(ChangeEvent(item.id, item.project_id, action, actor, write.now))
        return outcome.decision

    # -- merges (core.consolidation) ---------------------------------------------

    def propose_merges(
        self,
        project_id: str,
        merges: Sequence[tuple[MemoryDraft, Sequence[Memory]]],
        provenance: Provenance,
    ) -> list[Proposal]:
        """Hold each merged memory (a validated draft) and the memories it would replace
        as one Inbox proposal, all in one transaction. A group whose memories changed
        since they were read, or wait in another merge already, is skipped."""
        project_id = rules.check_project_id(project_id)
        with self._kernel.write() as write:
            made = [
                merge_review.propose_merge(
                    write.txn,
                    self._screen.draft(draft),
                    members,
                    provenance,
                    CONSOLIDATOR_ACTOR,
                    write.now,
                )
                for draft, members in merges
                if members and all(m.project_id == project_id for m in members)
            ]
            proposals = [p for p in made if p is not None]
            for p in proposals:
                write.announce(
                    ChangeEvent(p.id, project_id, "proposed", CONSOLIDATOR_ACTOR, write.now)
                )
        return proposals

    # -- extraction runs --------------------------------------------------------

    def store_extraction(
        self,
        project_id: str,
        entries: Sequence[object],
        provenance: Provenance,
        *,
        review: bool,
        started_at: float,
    ) -> ExtractionRun:
        """Store a run's entries (proposals when ``review``, else unreviewed memories)
        and its record, in one transaction."""
        project_id = rules.check_project_id(project_id)
        checked = check_entries(entries)
        with self._kernel.write() as write:
            now, txn = write.now, write.txn
            stored = proposing.store_extracted(
                txn,
                project_id,
                checked.drafts,
                provenance,
                review=review,
                actor=EXTRACTOR_ACTOR,
                now=now,
                screen=self._screen,
            )
            run = ExtractionRun(
                id=provenance.run_id,
                project_id=project_id,
                started_at=started_at,
                finished_at=now,
                agent=provenance.agent,
                session_id=provenance.session_id,
                source=provenance.source,
                model=provenance.model,
                status=RunStatus.OK,
                added=stored.added,
                proposed=stored.proposed,
                duplicates=stored.duplicates,
                invalid=checked.invalid,
                refused=checked.refused,
                item_ids=tuple(stored.item_ids),
            )
            proposing.record_run(txn, run, EXTRACTOR_ACTOR)
            write.touch(stored.memories)
            for item_id, action in stored.events:
                write.announce(ChangeEvent(item_id, project_id, action, EXTRACTOR_ACTOR, now))
            write.announce(ChangeEvent(run.id, project_id, "extracted", EXTRACTOR_ACTOR, now))
        return run

    def record_failed_extraction(
        self, project_id: str, provenance: Provenance, reason: str, *, started_at: float
    ) -> ExtractionRun:
        """Record a run that produced nothing, and why (shown in the Activity view)."""
        project_id = rules.check_project_id(project_id)
        reason = " ".join(reason.split())[:MAX_REASON_CHARS] or "unknown error"
        with self._kernel.write() as write:
            now = write.now
            run = ExtractionRun(
                id=provenance.run_id,
                project_id=project_id,
                started_at=started_at,
                finished_at=now,
                agent=provenance.agent,
                session_id=provenance.session_id,
                source=provenance.source,
                model=provenance.model,
                status=RunStatus.FAILED,
                reason=reason,
            )
            proposing.record_run(write.txn, run, EXTRACTOR_ACTOR)
            write.announce(
                ChangeEvent(run.id, project_id, "extraction_failed", EXTRACTOR_ACTOR, now)
            )
        return run

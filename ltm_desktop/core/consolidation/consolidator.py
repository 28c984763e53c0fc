"""One consolidation run of a scope: find groups, have each merged, hold the merges in
the Inbox.

Asking the model is the slow part and happens before anything is written; the merges
are then proposed in one transaction. So a model that is down, too slow or answers
nothing usable leaves no trace but the error (``ConsolidationFailed``), and a run either
proposes what it found or nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ltm_desktop.core.backend import MemoryStore
from ltm_desktop.core.consolidation.grouping import Group, Limits, find_groups
from ltm_desktop.core.consolidation.merge_entry import MergeRefused, NotSame, check_merge_entry
from ltm_desktop.core.consolidation.neighbours import StoreNeighbours
from ltm_desktop.core.errors import LtmError
from ltm_desktop.core.inbox.extraction import new_run_id
from ltm_desktop.core.inbox.proposals import Proposal, ProposalState
from ltm_desktop.core.records import Memory, MemoryDraft, Provenance
from ltm_desktop.core.seams import Embedder

log = logging.getLogger(__name__)
DECLINED_LOOKBACK = 500  # rejected merges remembered as "a person said no"


class ConsolidationFailed(LtmError):
    """The model could not merge what was found; nothing was written."""


class MergeWriter(Protocol):
    """Asks a model for the merged memory of a group (``agent.consolidation.writer``)."""

    @property
    def model(self) -> str: ...

    def write(self, members: Sequence[Memory]) -> object:
        """The model's answer as parsed JSON (``merge_entry`` judges it).

        Raises:
            LtmError: no usable answer (endpoint down, too slow, not JSON); the message
                says why.
        """
        ...


class MergeTarget(Protocol):
    """What a run needs of the service (``MemoryService.inbox`` is one)."""

    store: MemoryStore

    def now(self) -> float: ...

    def propose_merges(
        self,
        project_id: str,
        merges: Sequence[tuple[MemoryDraft, Sequence[Memory]]],
        provenance: Provenance,
    ) -> list[Proposal]: ...


@dataclass(frozen=True)
class Report:
    """What a run found and did."""

    project_id: str
    groups: tuple[Group, ...]
    proposals: tuple[Proposal, ...] = ()
    not_same: int = 0  # groups the model said differ
    refused: int = 0  # merges that were not valid memories, or held a credential
    stale: int = 0  # groups that changed (or were proposed by another run) meanwhile
    dry_run: bool = False
    reasons: tuple[str, ...] = field(default=(), repr=False)

    def summary(self) -> str:
        found = _count(len(self.groups), "group")
        if self.dry_run:
            return f"{found} of memories that say the same thing (dry run: nothing asked)"
        parts = [f"{found} found", f"{_count(len(self.proposals), 'merge')} proposed"]
        for count, label in (
            (self.not_same, "judged different by the model"),
            (self.refused, "refused (not a valid memory, or a credential)"),
            (self.stale, "changed meanwhile"),
        ):
            if count:
                parts.append(f"{count} {label}")
        return ", ".join(parts)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


class Consolidator:
    """Finds a scope's groups and proposes one merged memory for each.

    Args:
        target: the service (its store, clock and ``propose_merges``).
        embedder: the service's embedder (vectors for grouping).
        writer: asks the model; None: only ``find`` and dry runs work.
        limits: the cost bounds of one run (``grouping.Limits``).
    """

    def __init__(
        self,
        target: MergeTarget,
        embedder: Embedder,
        writer: MergeWriter | None = None,
        limits: Limits | None = None,
    ) -> None:
        self._target = target
        self._embedder = embedder
        self._writer = writer
        self.limits = limits or Limits()

    def find(self, project_id: str) -> list[Group]:
        """The scope's groups, leaving out memories waiting in a merge proposal and the
        groups a person rejected as merges."""
        store = self._target.store
        pending = store.merge_proposals(project_id, ProposalState.PROPOSED.value)
        declined = store.merge_proposals(project_id, ProposalState.REJECTED.value)
        neighbours = StoreNeighbours(store, self._embedder, self._target.now)
        return find_groups(
            project_id,
            neighbours,
            self.limits,
            exclude={m.memory_id for p in pending for m in p.merges},
            declined={
                frozenset(m.memory_id for m in p.merges) for p in declined[:DECLINED_LOOKBACK]
            },
        )

    def run(
        self,
        project_id: str,
        *,
        dry_run: bool = False,
        progress: Callable[[str], None] | None = None,
    ) -> Report:
        """Find the groups and, unless ``dry_run``, propose their merges.

        Raises:
            ConsolidationFailed: the model gave no usable merge for any group, or could
                not be reached; nothing was written.
        """
        groups = tuple(self.find(project_id))
        if dry_run or not groups:
            return Report(project_id, groups, dry_run=dry_run)
        if self._writer is None:
            raise ConsolidationFailed("no model is configured to write the merges")
        merges: list[tuple[MemoryDraft, Group]] = []
        not_same = refused = 0
        reasons: list[str] = []
        for number, group in enumerate(groups, start=1):
            if progress is not None:
                progress(f"merging group {number} of {len(groups)} ({len(group)} memories)")
            try:
                answer = self._writer.write(group)
            except LtmError as exc:
                raise ConsolidationFailed(f"{exc}; nothing was written") from None
            try:
                merges.append((check_merge_entry(answer, group), group))
            except NotSame:
                not_same += 1
            except MergeRefused as exc:
                refused += 1
                reasons.append(str(exc))
                log.info("a merge of %s was refused: %s", [m.id for m in group], exc)
        if refused and not merges and not not_same:
            raise ConsolidationFailed(
                f"the model's answers were not usable merges ({reasons[-1]}); nothing was written"
            )
        proposals = self._target.propose_merges(project_id, merges, self._provenance())
        return Report(
            project_id,
            groups,
            tuple(proposals),
            not_same=not_same,
            refused=refused,
            stale=len(merges) - len(proposals),
            reasons=tuple(reasons),
        )

    def _provenance(self) -> Provenance:
        now = self._target.now()
        model = self._writer.model if self._writer is not None else ""
        return Provenance(new_run_id(now), "consolidate", "", "consolidation", model, now)

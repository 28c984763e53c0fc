"""Review beyond Keep (part of MemoryService): each scope's count of stale candidates
and of memories agents added since the person last looked (the sidebar), and the undo
of a Keep."""

from __future__ import annotations

from collections.abc import Callable

from ltm_desktop.core import rules
from ltm_desktop.core.inbox import reviewing
from ltm_desktop.core.records import Memory, ReviewState
from ltm_desktop.core.service_parts import ServiceParts
from ltm_desktop.core.versions import check_expected


class StaleReview(ServiceParts):
    """The service provides the attributes below (and those of ServiceParts)."""

    _stale_cutoff: Callable[[], float]

    def unmark_reviewed(
        self,
        memory_id: str,
        actor: str,
        earlier: tuple[float | None, str | None],
        *,
        expected_updated_at: float | None = None,
    ) -> Memory:
        """Undo a Keep: ``earlier`` is the (reviewed_at, review_state) the memory had."""
        actor = rules.check_actor(actor)
        expected = check_expected(expected_updated_at)
        reviewed_at, state = earlier
        review_state = None if state is None else ReviewState(state)
        with self._write_lock, self._current_on_conflict(), self.store.write() as txn:
            memory = reviewing.unmark_reviewed(
                txn, memory_id, actor, self.now(), (reviewed_at, review_state), expected
            )
        self.events.publish([self._event(memory, "reviewed", actor)])
        return self._uses.overlay(memory)

    def new_counts(self, since: float) -> dict[str, int]:
        """Memories agents added after ``since`` per scope (the person's "new" counts)."""
        return self.store.new_counts(since, self.now())

    def stale_counts(self) -> dict[str, int]:
        """Stale candidates per scope (the sidebar's counts), by project id."""
        return self.store.stale_counts(
            self.settings.stale_max_importance, self._stale_cutoff(), self.now()
        )

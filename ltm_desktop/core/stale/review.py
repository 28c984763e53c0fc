"""A person's review of memories (``MemoryService.reviews``): Keep a stale candidate and
its undo, and each scope's count of memories agents added since the person last looked."""

from __future__ import annotations

from ltm_desktop.core import rules, writing
from ltm_desktop.core.backend import MemoryStore
from ltm_desktop.core.inbox import reviewing
from ltm_desktop.core.kernel import WriteKernel
from ltm_desktop.core.records import Memory, ReviewState
from ltm_desktop.core.versions import check_expected


class Reviews:
    """Keep and its undo, written through the kernel; the "new since" counts."""

    def __init__(self, store: MemoryStore, kernel: WriteKernel) -> None:
        self.store = store
        self._kernel = kernel

    def mark(
        self, memory_id: str, actor: str, *, expected_updated_at: float | None = None
    ) -> Memory:
        """Keep a stale candidate: it leaves the stale list until it goes stale again.
        ``expected_updated_at``: the version the caller saw (StaleEdit if it moved on)."""
        actor = rules.check_actor(actor)
        expected = check_expected(expected_updated_at)
        with self._kernel.write() as write:
            memory = writing.mark_reviewed(write.txn, memory_id, actor, write.now, expected)
            write.record(memory, "reviewed", actor, rewrite=False)
        return self._kernel.overlay(memory)

    def unmark(
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
        with self._kernel.write() as write:
            memory = reviewing.unmark_reviewed(
                write.txn, memory_id, actor, write.now, (reviewed_at, review_state), expected
            )
            write.record(memory, "reviewed", actor, rewrite=False)
        return self._kernel.overlay(memory)

    def new_counts(self, since: float) -> dict[str, int]:
        """Memories agents added after ``since`` per scope (the person's "new" counts)."""
        return self.store.new_counts(since, self._kernel.now())

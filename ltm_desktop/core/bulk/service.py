"""Bulk writes (``MemoryService.bulk``): thousands of removes, restores, keeps or edits in
a few transactions (``core.bulk``), each memory still checked against the version the
caller saw and audited on its own.

Per batch: one transaction, one round of MEMORY.md regeneration for the scopes it
touched (``_after_write``), one change notification (``events.publish``) holding an
event per memory. Between batches the write lock is released, so an agent's write does
not wait for the whole bulk action.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from ltm_desktop.core import rules, writing
from ltm_desktop.core.bulk.rules import (
    BATCH_SIZE,
    EVENT_OF,
    TAG_EDITS,
    VIEW_ACTIONS,
    BulkResult,
    Change,
    Progress,
    apply_batch,
    earlier_review,
    in_batches,
)
from ltm_desktop.core.errors import Conflict, InvalidInput, LtmError, StorageError
from ltm_desktop.core.kernel import WriteKernel
from ltm_desktop.core.privacy.screening import Screen
from ltm_desktop.core.records import Memory
from ltm_desktop.core.stale.file_aware import FileAware
from ltm_desktop.core.versions import check_expected

Embedding = writing.Embedding


class BulkWrites:
    """Thousands of changes in a few transactions: ``MemoryService.bulk``."""

    def __init__(
        self,
        kernel: WriteKernel,
        *,
        screen: Screen,
        vector_for: Callable[..., Embedding | None],
        files: FileAware,
    ) -> None:
        self._kernel = kernel
        self._screen = screen
        self._vector_for = vector_for
        self._files = files

    def write_many(
        self,
        changes: Sequence[Change],
        actor: str,
        *,
        progress: Progress | None = None,
        batch_size: int = BATCH_SIZE,
    ) -> BulkResult:
        """Make every change, ``batch_size`` to a transaction, in order.

        A change a rule refuses (a conflict, a memory gone, bad values) is in
        ``refused`` and the others are made. A storage error that hits once some
        batches are committed ends the work: ``stopped`` and ``not_done`` say so (those
        committed stay). One that hits before anything was written is raised.

        Args:
            progress: called after each batch with (changes settled, of how many).
        """
        actor = rules.check_actor(actor)
        result = BulkResult()
        asked: list[Change] = []  # as the caller made them (what ``result`` names)
        ready: list[Change] = []  # checked
        for change in changes:
            try:
                ready.append(self._checked_change(change))
                asked.append(change)
            except StorageError:
                raise
            except LtmError as exc:
                result.refused.append((change, exc))
        total = len(changes)

        def write(start: int, end: int) -> None:
            self._write_batch(ready[start:end], asked[start:end], actor, result)
            if progress is not None:
                progress(result.settled, total)

        stopped, at = in_batches(len(ready), batch_size, write, lambda: bool(result.done))
        if stopped is not None:
            result.stopped, result.not_done = stopped, asked[at:]
        return result

    def _checked_change(self, change: Change) -> Change:
        """``change`` with its id, version and values checked as the single write checks
        them (InvalidInput, or NotFound for files of a memory that is gone)."""
        memory_id = rules.check_text(change.memory_id, "id")
        expected = check_expected(change.expected_updated_at)
        values = change.values
        if change.action == "update":
            edits = {name: values[name] for name in TAG_EDITS if name in values}
            rest = {name: value for name, value in values.items() if name not in TAG_EDITS}
            if edits and "tags" in rest:
                raise InvalidInput("set the tags, or add and remove some: not both", "tags")
            values = rules.validate_changes(self._files.checked_changes(memory_id, rest))
            values.update({name: list(rules.check_tags(tags)) for name, tags in edits.items()})
        elif change.action == "unreview":
            try:
                earlier_review(values)
            except ValueError as exc:
                raise InvalidInput(f"not a review state: {exc}", "review_state") from exc
        elif change.action not in EVENT_OF:
            raise InvalidInput(f"not a bulk action: {change.action!r}", "action")
        return replace(change, memory_id=memory_id, expected_updated_at=expected, values=values)

    def _write_batch(
        self, batch: Sequence[Change], asked: Sequence[Change], actor: str, result: BulkResult
    ) -> None:
        def embed(memory: Memory) -> Embedding | None:
            return self._vector_for(writing.embedding_text(memory), now=True)

        with self._kernel.write() as write:
            written, refused = apply_batch(
                write.txn, batch, actor, write.now, screen=self._screen, embed=embed
            )
            for index, before, after in written:
                action = batch[index].action
                if action == "update" and after == before:
                    continue  # nothing changed: no event, as for ``update``
                write.record(after, EVENT_OF[action], actor, rewrite=action in VIEW_ACTIONS)
        overlay = self._kernel.overlay
        for index, before, after in written:
            result.done.append((overlay(before), overlay(after)))
            result.changes.append(asked[index])
        for index, exc in refused:
            if isinstance(exc, Conflict) and exc.current is not None:
                exc.current = overlay(exc.current)
            result.refused.append((asked[index], exc))

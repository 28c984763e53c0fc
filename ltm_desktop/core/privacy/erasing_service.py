"""Erasing, as part of MemoryService: one memory of the trash, many, or a scope's whole trash."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ltm_desktop.core import rules
from ltm_desktop.core.backend import MemoryStore
from ltm_desktop.core.bulk.rules import BATCH_SIZE, Progress, in_batches
from ltm_desktop.core.errors import LtmError
from ltm_desktop.core.kernel import WriteKernel
from ltm_desktop.core.privacy import erasing
from ltm_desktop.core.records import Memory

log = logging.getLogger(__name__)
BACKUP_NOTE = "backups taken before still hold it (ltm-desktop backup, backups/)"


@dataclass(frozen=True, slots=True)
class Erased:
    """What an erase did: the ids erased, and whether the files are already clean.

    For ``erase_many`` also what it did not erase: ``refused`` (not in the trash, or gone,
    each with why) and, when a storage error ended it part-way, ``stopped`` and the ids
    ``not_done`` (those erased before it stay erased)."""

    ids: tuple[str, ...]
    scrubbed: bool
    note: str  # for a person: what is left (backups; a checkpoint still to come)
    refused: tuple[tuple[str, LtmError], ...] = ()
    stopped: LtmError | None = None
    not_done: tuple[str, ...] = ()


class Eraser:
    """Erasure for good, of memories already in the trash: ``MemoryService.privacy``."""

    def __init__(self, store: MemoryStore, kernel: WriteKernel) -> None:
        self.store = store
        self._kernel = kernel

    def erase(self, memory_id: str, actor: str) -> Erased:
        """Erase a memory of the trash for good (Conflict ``active`` if it is not there)."""
        actor = rules.check_actor(actor)
        memory_id = rules.check_text(memory_id, "id").strip()
        return self._erase(
            lambda txn, now: [erasing.erase_memory(txn, memory_id, actor, now)], actor
        )

    def empty_trash(self, project_id: str, actor: str) -> Erased:
        """Erase every memory in the scope's trash."""
        actor = rules.check_actor(actor)
        project_id = rules.check_project_id(project_id)
        return self._erase(lambda txn, now: erasing.empty_trash(txn, project_id, actor, now), actor)

    def erase_many(
        self,
        memory_ids: Sequence[str],
        actor: str,
        *,
        progress: Progress | None = None,
        batch_size: int = BATCH_SIZE,
    ) -> Erased:
        """Erase these memories of the trash for good, ``batch_size`` to a transaction.

        Every id is checked first: one that is not an id (None, empty) erases nothing
        (InvalidInput). A memory that is not in the trash, or is gone, is refused alone.
        A storage error once some batches are committed ends the work (``stopped``); one
        before anything was erased is raised. The files are scrubbed once, at the end.

        Args:
            progress: called after each batch with (ids settled so far, of how many).
        """
        actor = rules.check_actor(actor)
        ids = [rules.check_text(memory_id, "id").strip() for memory_id in memory_ids]
        erased: list[str] = []
        refused: list[tuple[str, LtmError]] = []

        def write(start: int, end: int) -> None:
            with self._kernel.write() as write:
                gone, no = erasing.erase_each(write.txn, ids[start:end], actor, write.now)
                for memory in gone:
                    write.record(memory, "erased", actor, rewrite=False)
            erased.extend(m.id for m in gone)
            refused.extend(no)
            if progress is not None:
                progress(len(erased) + len(refused), len(ids))

        stopped, at = in_batches(len(ids), batch_size, write, lambda: bool(erased))
        not_done = tuple(ids[at:])
        with self._kernel.locked():
            problem = self.store.scrub() if erased else None
        if problem:
            log.warning("erased memories may linger in the database files: %s", problem)
        note = BACKUP_NOTE if problem is None else f"{problem}; {BACKUP_NOTE}"
        return Erased(tuple(erased), problem is None, note, tuple(refused), stopped, not_done)

    def _erase(self, work: Callable[..., list[Memory]], actor: str) -> Erased:
        scrubbed: list[str | None] = [None]

        def scrub() -> None:
            scrubbed[0] = self.store.scrub()

        with self._kernel.write() as write:
            erased = work(write.txn, write.now)
            for memory in erased:
                write.record(memory, "erased", actor, rewrite=False)
            if erased:
                write.then(scrub)
        problem = scrubbed[0]
        if problem:
            log.warning("erased memories may linger in the database files: %s", problem)
        note = BACKUP_NOTE if problem is None else f"{problem}; {BACKUP_NOTE}"
        return Erased(tuple(m.id for m in erased), problem is None, note)

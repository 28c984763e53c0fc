"""Erasing, as part of MemoryService: one memory of the trash, or a scope's whole trash."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ltm_desktop.core import erasing, rules
from ltm_desktop.core.backend import MemoryStore
from ltm_desktop.core.events import EventHub
from ltm_desktop.core.records import ChangeEvent, Memory

log = logging.getLogger(__name__)
BACKUP_NOTE = "backups taken before still hold it (ltm-desktop backup, backups/)"


@dataclass(frozen=True, slots=True)
class Erased:
    """What an erase did: the ids erased, and whether the files are already clean."""

    ids: tuple[str, ...]
    scrubbed: bool
    note: str  # for a person: what is left (backups; a checkpoint still to come)


class ErasingService:
    """The service's erasure; MemoryService provides the attributes below."""

    store: MemoryStore
    events: EventHub
    now: Callable[[], float]
    _write_lock: threading.RLock

    def _after_write(self, changed: Sequence[Memory]) -> None: ...  # MemoryService's

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

    def _erase(self, work: Callable[..., list[Memory]], actor: str) -> Erased:
        with self._write_lock:
            now = self.now()
            with self.store.write() as txn:
                erased = work(txn, now)
            problem = self.store.scrub() if erased else None
        if problem:
            log.warning("erased memories may linger in the database files: %s", problem)
        self.events.publish([ChangeEvent(m.id, m.project_id, "erased", actor, now) for m in erased])
        note = BACKUP_NOTE if problem is None else f"{problem}; {BACKUP_NOTE}"
        return Erased(tuple(m.id for m in erased), problem is None, note)

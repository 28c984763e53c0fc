"""Memories that name files: their paths checked against the project's directory
(``MemoryService.files``), and the stale list (``MemoryService.stale``).

A stale candidate qualifies for one or both reasons: it is old, unimportant and never used
(``[stale]``), or a file it names no longer exists in its project's directory (checked at
most once per project per minute: ``core.files.MissingFiles``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from ltm_desktop.core import rules
from ltm_desktop.core.backend import MemoryStore
from ltm_desktop.core.errors import LtmError
from ltm_desktop.core.records import GLOBAL_PROJECT_ID, SECONDS_PER_DAY, Memory, MemoryDraft
from ltm_desktop.core.settings.config import Settings
from ltm_desktop.core.stale.named_files import MISSING_FILE, MissingFiles, check_files
from ltm_desktop.core.uses import UseCounter

MAX_NAMING = 10_000  # memories of one scope naming files that one check looks at


@dataclass(frozen=True, slots=True)
class StaleCandidate:
    """A memory the person may want to remove, and why.

    Attributes:
        aged: old, unimportant and never used (the ``[stale]`` settings).
        missing_files: the files it names that no longer exist.
    """

    memory: Memory
    aged: bool
    missing_files: tuple[str, ...] = ()

    @property
    def reasons(self) -> tuple[str, ...]:
        found = []
        if self.missing_files:
            found.append(f"{MISSING_FILE}: {', '.join(self.missing_files)}")
        if self.aged:
            found.append("old, unimportant and never used")
        return tuple(found)


class FileAware:
    """The project directories that memories' files are relative to."""

    def __init__(self, store: MemoryStore, clock: Callable[[], float]) -> None:
        self.store = store
        self.now = clock

    def project_root(self, project_id: str) -> str | None:
        """The project's directory (None: global, or a project whose path is not known)."""
        if project_id == GLOBAL_PROJECT_ID:
            return None
        try:
            return self.store.get_project(project_id).path
        except LtmError:
            return None

    def checked_draft(self, project_id: str, draft: MemoryDraft, root: str | None) -> MemoryDraft:
        """``draft`` with its files relative to ``root`` (default: the scope's directory)."""
        if not draft.files:
            return draft
        root = root if root is not None else self.project_root(project_id)
        return replace(draft, files=check_files(draft.files, root))

    def checked_changes(self, memory_id: str, changes: dict[str, Any]) -> dict[str, Any]:
        """``changes`` with any files relative to the memory's scope's directory."""
        if not changes.get("files"):
            return changes
        memory = self.store.get_memory(rules.check_text(memory_id, "id"))
        root = self.project_root(memory.project_id)
        return {**changes, "files": check_files(changes["files"], root)}

    def files_named(self, project_id: str, path: str | None) -> list[Memory]:
        """Active, unexpired memories of the scope that name ``path`` (None: any file)."""
        return self.store.memories_naming([project_id], path, MAX_NAMING, self.now())


class StaleList:
    """Stale candidates: old, unimportant, never used, or naming files that are gone."""

    def __init__(
        self,
        store: MemoryStore,
        settings: Settings,
        clock: Callable[[], float],
        uses: UseCounter,
        files: FileAware,
    ) -> None:
        self.store = store
        self._settings = settings
        self.now = clock
        self._uses = uses
        self._files = files
        self._missing_files = MissingFiles(clock)  # files that are gone (core.stale.named_files)

    def cutoff(self) -> float:
        """Memories untouched since this time may be stale (``[stale] age_days``)."""
        return self.now() - self._settings.stale_age_days * SECONDS_PER_DAY

    def memories(self, project_id: str) -> list[Memory]:
        """The memories of ``candidates``."""
        return [c.memory for c in self.candidates(project_id)]

    def candidates(self, project_id: str) -> list[StaleCandidate]:
        """Memories whose named files are gone (first; unless a person kept one since the
        file went missing and it was not edited after), then low-importance, never-used
        memories nobody touched for ``stale_age_days`` (oldest first). Checks the files
        when the project is due: call it off the GUI thread."""
        project_id = rules.check_project_id(project_id)
        now = self.now()
        found = self.store.stale_memories(
            project_id, self._settings.stale_max_importance, self.cutoff(), now
        )
        used = self._uses.pending_ids()  # a use not yet written still counts
        aged = [m for m in found if m.id not in used]
        missing = self._missing_files.missing(
            project_id,
            self._files.project_root(project_id),
            lambda: [(m.id, m.files) for m in self._files.files_named(project_id, None)],
        )
        current = {m.id: m for m in self.store.get_memories(list(missing))} if missing else {}
        candidates: list[StaleCandidate] = []
        aged_ids = {m.id for m in aged}
        for memory_id, gone in missing.items():
            memory = current.get(memory_id)
            still = tuple(f for f in gone.files if memory is not None and f in memory.files)
            if memory is None or memory.disabled or memory.is_expired(now) or not still:
                continue  # changed since the check
            if (memory.reviewed_at or 0) >= max(gone.since, memory.updated_at):
                continue  # kept by a person since the file went missing
            candidates.append(StaleCandidate(memory, memory_id in aged_ids, still))
        listed = {c.memory.id for c in candidates}
        candidates += [StaleCandidate(m, True) for m in aged if m.id not in listed]
        return [replace(c, memory=self._uses.overlay(c.memory)) for c in candidates]

    def counts(self) -> dict[str, int]:
        """Stale candidates per scope (the sidebar's counts), by project id."""
        return self.store.stale_counts(
            self._settings.stale_max_importance, self.cutoff(), self.now()
        )

"""The storage protocol the service is written against.

SQLite implements it today (``ltm_desktop.store``); a server-grade backend
(e.g. PostgreSQL for shared team memory) can implement it later without the
service, the API or the GUI changing. Every write method is one transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ltm_desktop.core.observations import ObservationPayload
from ltm_desktop.core.query import ParsedQuery
from ltm_desktop.core.records import (
    AddResult,
    AuditEvent,
    ListQuery,
    Memory,
    MemoryDraft,
    Observation,
    Project,
)

MemoryHit = tuple[Memory, float, str]
ObservationHit = tuple[Observation, float, str]


@dataclass(frozen=True, slots=True)
class StoreHealth:
    """What the store knows about itself. ``problems`` are sentences for a person: each one
    means writes are failing, or would be lost, until it is fixed (some need a restart).
    ``synchronous`` says when a write is durable: "full" (on disk when acknowledged) or
    "normal" (a power cut may lose the last writes, never the database)."""

    problems: tuple[str, ...] = ()
    synchronous: str = "full"

    @property
    def ok(self) -> bool:
        return not self.problems


class MemoryStore(Protocol):
    """What the service needs from a backend."""

    @property
    def location(self) -> str: ...

    @property
    def schema_version(self) -> int: ...

    def close(self) -> None: ...
    def health(self) -> StoreHealth:
        """Checked now, cheaply (no query): files still in place, checkpoints, last write."""
        ...

    def data_version(self) -> int:
        """A number that changes whenever another process commits to the store."""
        ...

    # projects
    def ensure_project(self, project_id: str, path: str | None, name: str) -> Project: ...
    def get_project(self, project_id: str) -> Project: ...
    def list_projects(self) -> list[Project]: ...
    def active_counts(self, now: float) -> dict[str, int]: ...

    # memory writes (each one transaction; ``actor`` is recorded in the audit history)
    def add_memory(
        self, project_id: str, draft: MemoryDraft, actor: str, now: float
    ) -> AddResult: ...
    def import_memories(
        self, project_id: str, drafts: Sequence[MemoryDraft], actor: str, now: float
    ) -> list[Memory]: ...
    def update_memory(
        self,
        memory_id: str,
        changes: dict[str, Any],
        actor: str,
        now: float,
        expected_updated_at: float | None = None,
    ) -> tuple[Memory, Memory]:
        """Compare-and-swap: StaleEdit, and nothing written, unless the memory's
        ``updated_at`` is still ``expected_updated_at`` (when given); so for the next two."""
        ...

    def set_disabled(
        self,
        memory_id: str,
        disabled: bool,
        actor: str,
        now: float,
        expected_updated_at: float | None = None,
    ) -> Memory: ...
    def mark_reviewed(
        self, memory_id: str, actor: str, now: float, expected_updated_at: float | None = None
    ) -> Memory: ...
    def purge_expired(self, project_id: str | None, actor: str, now: float) -> list[Memory]: ...
    def reinforce(self, uses: dict[str, tuple[int, float]]) -> None:
        """Add uses: memory id -> (how many, last used at)."""
        ...

    # memory reads
    def get_memory(self, memory_id: str) -> Memory: ...
    def get_memories(self, memory_ids: Sequence[str]) -> list[Memory]:
        """The memories that exist among ``memory_ids`` (any order; unknown ids skipped)."""
        ...

    def list_memories(self, project_id: str, query: ListQuery, now: float) -> list[Memory]: ...
    def count_memories(self, project_id: str, query: ListQuery, now: float) -> int: ...
    def top_memories(self, project_id: str, n: int, now: float) -> list[Memory]: ...
    def stale_memories(
        self, project_id: str, max_importance: int, cutoff: float, now: float
    ) -> list[Memory]: ...
    def search_memories(
        self, project_ids: Sequence[str], query: ParsedQuery, limit: int, now: float
    ) -> list[MemoryHit]: ...
    def scope_counts(
        self, project_id: str, max_importance: int, cutoff: float, now: float
    ) -> dict[str, int]: ...

    # observations
    def add_observation(
        self, project_id: str, payload: ObservationPayload, actor: str, now: float
    ) -> Observation: ...
    def list_observations(self, project_id: str, limit: int, offset: int) -> list[Observation]: ...
    def search_observations(
        self, project_ids: Sequence[str], query: ParsedQuery, limit: int
    ) -> list[ObservationHit]: ...

    # audit history
    def memory_history(self, memory_id: str) -> list[AuditEvent]: ...
    def project_history(
        self, project_id: str, limit: int, before_seq: int | None, actor: str | None
    ) -> list[AuditEvent]: ...
    def events_after(self, seq: int, limit: int) -> list[AuditEvent]: ...
    def last_events(self, memory_ids: Sequence[str], actions: Sequence[str]) -> list[AuditEvent]:
        """The newest event with one of ``actions`` for each of the memories."""
        ...

    def last_event_seq(self) -> int: ...

    # forgetting observations
    def get_observation(self, observation_id: str) -> Observation:
        """The observation, forgotten or not; NotFound for an unknown id."""
        ...

    def forget_observation(self, observation_id: str, actor: str, now: float) -> Observation:
        """Soft delete: out of search and lists from now on (Conflict if it already is)."""
        ...

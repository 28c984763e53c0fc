"""The memory backend: the second design's service contract, chosen by ``[memory] backend``.

Six operations (remember, recall, observe, forget, health, stats) are what every agent
surface needs (the socket API, the HTTP API, the tools, the hooks). ``sqlite`` is this
data dir's database behind ``MemoryService`` (which reaches it through
``core.backend.MemoryStore``); ``agentmemory`` is the design's placeholder for a remote
service: it answers ``health`` with ``not_implemented`` and refuses everything else, so
choosing it never crashes a process and never writes anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from ltm_desktop.core.errors import BackendNotImplemented

if TYPE_CHECKING:
    from ltm_desktop.core.privacy.forgetting import ForgetResult
    from ltm_desktop.core.records import (
        AddResult,
        MemoryDraft,
        Observation,
        RecallHit,
        ScopeStats,
    )
    from ltm_desktop.core.service import MemoryService

SQLITE = "sqlite"
AGENTMEMORY = "agentmemory"
NOT_IMPLEMENTED = "not_implemented"


@dataclass(frozen=True, slots=True)
class BackendHealth:
    """``ok``: the backend answers; ``backend`` names it; ``detail`` says why not ("")."""

    ok: bool
    backend: str
    detail: str = ""


class MemoryBackend(Protocol):
    """What the agent surfaces ask of a memory, whichever backend holds it."""

    @property
    def name(self) -> str:
        """The ``[memory] backend`` value that chose it."""
        ...

    @property
    def local(self) -> bool:
        """This data dir's own database: the rest of the API (lists, edits, the inbox) and
        the app work on it too. A remote backend serves only the six operations."""
        ...

    def remember(
        self, project_id: str, draft: MemoryDraft, actor: str, *, root: str | None = None
    ) -> AddResult:
        """Add ``draft`` (``root``: the project's directory its ``files`` are relative to)."""
        ...

    def recall(
        self, project_id: str, query: str, *, limit: int = 5, include_global: bool = True
    ) -> list[RecallHit]: ...

    def observe(
        self, project_id: str, kind: str, session_id: str, actor: str, **texts: str | None
    ) -> Observation:
        """Record a lifecycle event; ``texts``: user_text, assistant_text, messages_text."""
        ...

    def forget(
        self,
        project_id: str,
        memory_ids: Sequence[str] | None,
        observation_ids: Sequence[str] | None,
        actor: str,
    ) -> ForgetResult: ...

    def health(self) -> BackendHealth: ...

    def stats(self, project_id: str) -> ScopeStats: ...


class SqliteBackend:
    """The data dir's database, through the service's own rules and write path."""

    name = SQLITE
    local = True

    def __init__(self, service: MemoryService) -> None:
        self._service = service

    def remember(
        self, project_id: str, draft: MemoryDraft, actor: str, *, root: str | None = None
    ) -> AddResult:
        return self._service.add(project_id, draft, actor, root=root)

    def recall(
        self, project_id: str, query: str, *, limit: int = 5, include_global: bool = True
    ) -> list[RecallHit]:
        return self._service.recall(project_id, query, limit=limit, include_global=include_global)

    def observe(
        self, project_id: str, kind: str, session_id: str, actor: str, **texts: str | None
    ) -> Observation:
        return self._service.observe(project_id, kind, session_id, actor, **texts)

    def forget(
        self,
        project_id: str,
        memory_ids: Sequence[str] | None,
        observation_ids: Sequence[str] | None,
        actor: str,
    ) -> ForgetResult:
        from ltm_desktop.core.privacy.forgetting import forget

        return forget(self._service, project_id, memory_ids, observation_ids, actor)

    def health(self) -> BackendHealth:
        state = self._service.store.health()
        return BackendHealth(state.ok, SQLITE, "; ".join(state.problems))

    def stats(self, project_id: str) -> ScopeStats:
        return self._service.stats(project_id)


def not_implemented_message(backend: str, url: str) -> str:
    return (
        f'the "{backend}" memory backend ({url}) is not implemented yet; nothing was read or '
        'written. Set [memory] backend = "sqlite" in the config to use the local database'
    )


class AgentMemoryBackend:
    """The placeholder for the agentmemory service at ``url``: nothing is sent to it."""

    name = AGENTMEMORY
    local = False

    def __init__(self, url: str) -> None:
        self.url = url

    def _refuse(self) -> BackendNotImplemented:
        return BackendNotImplemented(not_implemented_message(self.name, self.url))

    def remember(
        self, project_id: str, draft: MemoryDraft, actor: str, *, root: str | None = None
    ) -> AddResult:
        raise self._refuse()

    def recall(
        self, project_id: str, query: str, *, limit: int = 5, include_global: bool = True
    ) -> list[RecallHit]:
        raise self._refuse()

    def observe(
        self, project_id: str, kind: str, session_id: str, actor: str, **texts: str | None
    ) -> Observation:
        raise self._refuse()

    def forget(
        self,
        project_id: str,
        memory_ids: Sequence[str] | None,
        observation_ids: Sequence[str] | None,
        actor: str,
    ) -> ForgetResult:
        raise self._refuse()

    def health(self) -> BackendHealth:
        return BackendHealth(False, AGENTMEMORY, NOT_IMPLEMENTED)

    def stats(self, project_id: str) -> ScopeStats:
        raise self._refuse()


def make_backend(service: MemoryService) -> MemoryBackend:
    """The backend ``service.settings`` names (the config loader has checked the name)."""
    settings = service.settings
    if settings.memory_backend == AGENTMEMORY:
        return AgentMemoryBackend(settings.agentmemory_url)
    return SqliteBackend(service)

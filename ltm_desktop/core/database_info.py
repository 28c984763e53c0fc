"""What the service tells about its database and its MEMORY.md files (parts of
MemoryService): where the database is, its schema version and health, a project's name,
the MEMORY.md files that could not be written; so that the API, the command line and
the window ask the service rather than reach into its store or its file writer."""

from __future__ import annotations

from collections.abc import Callable

from ltm_desktop.core.backend import StoreHealth
from ltm_desktop.core.errors import LtmError
from ltm_desktop.core.memory_md.sync import MemoryMdSync, ProblemsListener
from ltm_desktop.core.records import MemoryMdProblem
from ltm_desktop.core.service_parts import ServiceParts


class DatabaseInfo(ServiceParts):
    @property
    def database_location(self) -> str:
        """The database file (or what stands for it), for people and logs."""
        return self.store.location

    @property
    def schema_version(self) -> int:
        return self.store.schema_version

    def database_health(self) -> StoreHealth:
        """Problems that fail or lose writes, and when a write is durable."""
        return self.store.health()

    def project_name(self, project_id: str) -> str:
        """The scope's name, or its id when it cannot be read (one indexed row)."""
        try:
            return self.store.get_project(project_id).name
        except LtmError:
            return project_id


class MemoryMdStatus:
    """The service provides ``views``, which writes the MEMORY.md files."""

    views: MemoryMdSync

    def memory_md_problems(self) -> list[MemoryMdProblem]:
        """Scopes whose MEMORY.md is out of date because it could not be written."""
        return self.views.problems()

    def subscribe_memory_md_problems(self, listener: ProblemsListener) -> Callable[[], None]:
        """Call ``listener(problems)`` (any thread) when they change; returns the unsubscribe."""
        return self.views.subscribe(listener)

    def retry_memory_md(self) -> list[MemoryMdProblem]:
        """Write the MEMORY.md files that failed, now; the problems left."""
        return self.views.retry_now()

    def settle_views(self, timeout: float) -> bool:
        """Wait until the MEMORY.md files of the scopes written so far are regenerated
        (not a global write's fan-out to every project); False on timeout."""
        return self.views.settle(timeout)

    def flush_views(self, timeout: float = 10.0) -> bool:
        """Wait until every MEMORY.md reflects the writes made so far; False on timeout."""
        return self.views.flush(timeout)

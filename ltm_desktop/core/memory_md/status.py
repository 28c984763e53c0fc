"""The MEMORY.md files' state, as the API, the app and the commands may see it
(``MemoryService.memory_md``): what could not be written, a retry, and waiting until the
files show the writes made so far. The writer itself (``sync``) stays the core's."""

from __future__ import annotations

from collections.abc import Callable

from ltm_desktop.core.memory_md.sync import MemoryMdSync, ProblemsListener
from ltm_desktop.core.records import MemoryMdProblem


class MemoryMdStatus:
    """A narrow view of the MEMORY.md writer."""

    def __init__(self, views: MemoryMdSync) -> None:
        self._views = views

    def problems(self) -> list[MemoryMdProblem]:
        """Scopes whose MEMORY.md is out of date because it could not be written."""
        return self._views.problems()

    def subscribe(self, listener: ProblemsListener) -> Callable[[], None]:
        """Call ``listener(problems)`` (any thread) when they change; returns the unsubscribe."""
        return self._views.subscribe(listener)

    def retry(self) -> list[MemoryMdProblem]:
        """Write the MEMORY.md files that failed, now; the problems left."""
        return self._views.retry_now()

    def settle(self, timeout: float) -> bool:
        """Wait until the MEMORY.md files of the scopes written so far are regenerated
        (not a global write's fan-out to every project); False on timeout."""
        return self._views.settle(timeout)

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until every MEMORY.md reflects the writes made so far; False on timeout."""
        return self._views.flush(timeout)

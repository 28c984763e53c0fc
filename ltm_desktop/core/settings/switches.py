"""The memory's switches: ``[memory] enabled`` and ``[memory] backend``
(``MemoryService.switches``).

Every agent surface (the socket API, the HTTP API, the tools, the hooks) asks
``require_memory`` before it reads or writes, so one switch answers them all alike. The
desktop app is not an agent: a person may still look at and curate what is stored while
the switch is off, and turn it back on (``set_enabled``).

``[memory] backend`` names where the memory lives: ``sqlite`` (this data dir's database,
the only one implemented) or ``agentmemory``, the first design's placeholder for a remote
service: choosing it answers every agent with "not implemented" and writes nothing.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ltm_desktop.core.errors import BackendNotImplemented, MemoryDisabled
from ltm_desktop.core.settings.config import Settings

SQLITE = "sqlite"
NOT_IMPLEMENTED = "not_implemented"
DISABLED_MESSAGE = (
    "long-term memory is disabled ([memory] enabled = false in the config); "
    "nothing was read or written"
)


def not_implemented_message(backend: str, url: str) -> str:
    return (
        f'the "{backend}" memory backend ({url}) is not implemented yet; nothing was read or '
        'written. Set [memory] backend = "sqlite" in the config to use the local database'
    )


class Switches:
    """The settings as this process runs them (the switch can change while it runs), where
    they came from, and what was wrong with them (the app shows it in a warning bar)."""

    def __init__(
        self,
        settings: Settings,
        *,
        config_path: Path | None = None,
        config_problems: tuple[str, ...] = (),
    ) -> None:
        self.settings = settings
        self.config_path = config_path
        self.config_problems = config_problems

    @property
    def enabled(self) -> bool:
        """``[memory] enabled``: agents may read and write long-term memory."""
        return self.settings.memory_enabled

    def set_enabled(self, enabled: bool) -> None:
        """Switch memory on or off for this process from now on (the config file is the
        caller's: ``core.settings.config_file.set_config_value``)."""
        self.settings = replace(self.settings, memory_enabled=bool(enabled))

    @property
    def backend(self) -> str:
        """``[memory] backend``: where the memory lives."""
        return self.settings.memory_backend

    @property
    def local(self) -> bool:
        """The memory is this data dir's own database."""
        return self.backend == SQLITE

    def backend_problem(self) -> str:
        """Why the backend cannot serve ("": it can)."""
        return "" if self.local else NOT_IMPLEMENTED

    def require_memory(self) -> None:
        """Raise unless an agent may use the memory now.

        Raises:
            MemoryDisabled: ``[memory] enabled = false``.
            BackendNotImplemented: the chosen backend is a placeholder.
        """
        if not self.settings.memory_enabled:
            raise MemoryDisabled(DISABLED_MESSAGE)
        if not self.local:
            raise BackendNotImplemented(
                not_implemented_message(self.backend, self.settings.agentmemory_url)
            )

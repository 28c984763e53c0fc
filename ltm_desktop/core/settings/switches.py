"""The service's switches: ``[memory] enabled`` and ``[memory] backend``.

Every agent surface (the socket API, the HTTP API, the tools, the hooks) asks
``require_memory`` before it reads or writes, so one switch answers them all alike. The
desktop app is not an agent: a person may still look at and curate what is stored while
the switch is off, and turn it back on (``set_enabled``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from ltm_desktop.core import rules
from ltm_desktop.core.errors import BackendNotImplemented, MemoryDisabled
from ltm_desktop.core.memory_backend import MemoryBackend, not_implemented_message
from ltm_desktop.core.records import AddResult, Category, MemoryDraft

if TYPE_CHECKING:
    from ltm_desktop.core.settings.config import Settings

DISABLED_MESSAGE = (
    "long-term memory is disabled ([memory] enabled = false in the config); "
    "nothing was read or written"
)


class Switches:
    """Mixed into MemoryService (which sets ``settings`` and ``backend``)."""

    settings: Settings
    backend: MemoryBackend
    # Where the settings came from and what was wrong with them (the composition root
    # fills these in; the app shows the problems in a warning bar).
    config_path: Path | None = None
    config_problems: tuple[str, ...] = ()

    @property
    def enabled(self) -> bool:
        """``[memory] enabled``: agents may read and write long-term memory."""
        return self.settings.memory_enabled

    def set_enabled(self, enabled: bool) -> None:
        """Switch memory on or off for this process from now on (the config file is the
        caller's: ``core.config_file.set_config_value``)."""
        self.settings = replace(self.settings, memory_enabled=bool(enabled))

    def require_memory(self) -> None:
        """Raise unless an agent may use the memory now.

        Raises:
            MemoryDisabled: ``[memory] enabled = false``.
            BackendNotImplemented: the chosen backend is a placeholder.
        """
        if not self.settings.memory_enabled:
            raise MemoryDisabled(DISABLED_MESSAGE)
        if not self.backend.local:
            raise BackendNotImplemented(
                not_implemented_message(self.backend.name, self.settings.agentmemory_url)
            )

    def remember(
        self,
        cwd: object,
        content: object,
        *,
        actor: str = "agent",
        category: Category | str | None = None,
        tags: Sequence[str] = (),
        files: Sequence[str] | None = None,
        title: str | None = None,
    ) -> AddResult:
        """Add a memory for the agent working in ``cwd`` through the configured backend
        (the HTTP API's ``remember``: ``type`` is ``category``, any of ``rules.MEMORY_TYPES``
        such as "decision" or "todo"; ``concepts`` are ``tags``). ``files`` may be relative
        to ``cwd`` or absolute inside it; they are stored relative to it.

        Raises:
            MemoryDisabled, BackendNotImplemented: see ``require_memory``.
            InvalidInput: bad content, category, tags or files (named in ``field``; a
                file outside ``cwd`` is refused).
        """
        self.require_memory()
        root = rules.normalize_cwd(cwd)
        project_id = self.resolve_scope(cwd=root, register=False)
        if isinstance(category, str) and category in rules.MEMORY_TYPES:
            category = rules.MEMORY_TYPES[category]  # "decision" -> knowledge, "todo" -> task
        draft = MemoryDraft(
            content=content,  # type: ignore[arg-type] # checked by the rules
            title=title,
            category=category or Category.KNOWLEDGE,
            tags=tuple(tags),
            files=tuple(files or ()),
        )
        result = self.backend.remember(project_id, draft, rules.check_actor(actor), root=root)
        self.resolve_scope(cwd=root, register=True)
        return result

    # provided by MemoryService
    def resolve_scope(
        self, *, cwd: object = None, project_id: object = None, register: bool = False
    ) -> str:
        raise NotImplementedError

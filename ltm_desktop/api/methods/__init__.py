"""Every method of the API, one module per group, and the dispatcher over them.

Each module registers its handlers with ``api.registry.method``; none imports another, nor
this package. Importing this package imports them all, so the table it hands out
(``all_methods()``, ``METHODS``) is complete, and ``Dispatcher`` here is bound to it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from ltm_desktop.api import dispatch
from ltm_desktop.api.call import NotInline, Session
from ltm_desktop.api.methods import (
    changes,
    erase,
    inbox,
    memories,
    observe,
    projects,
    search,
    session,
)
from ltm_desktop.api.offline import Fallback, fallbacks
from ltm_desktop.api.registry import TABLE, Handler, Method
from ltm_desktop.core.service import MemoryService

GROUPS = (session, projects, memories, search, observe, changes, erase, inbox)
__all__ = ["INLINE", "METHODS", "UNGATED", "Dispatcher", "NotInline", "Session", "all_methods"]


def all_methods() -> Mapping[str, Method]:
    """Every method, by name (read-only)."""
    return MappingProxyType(TABLE)


METHODS: Mapping[str, Method] = all_methods()
# The offline answers (the outbox's queued writes, the read cache), by method name.
FALLBACKS: Mapping[str, Fallback] = MappingProxyType(fallbacks(METHODS))
# Answered on the server's event loop (they may still hand a request to the thread pool).
INLINE: Mapping[str, Handler] = {n: m.at_once for n, m in METHODS.items() if m.at_once}
# Answered whatever the switches say ([memory] enabled, backend).
UNGATED = frozenset(name for name, m in METHODS.items() if not m.gated)


class Dispatcher(dispatch.Dispatcher):
    """The dispatcher over every method of the API."""

    def __init__(
        self,
        service: MemoryService,
        token: str | None = None,
        on_write: Callable[[str, str, Any], None] | None = None,
    ) -> None:
        super().__init__(
            service, all_methods(), token=token, on_write=on_write, fallbacks=FALLBACKS
        )

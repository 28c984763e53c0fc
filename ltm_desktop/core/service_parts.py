"""What MemoryService gives the mixins that write through it (stale review, scope
transfers): declared once so that each mixin type-checks on its own."""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import AbstractContextManager

from ltm_desktop.core.backend import MemoryStore
from ltm_desktop.core.events import EventHub
from ltm_desktop.core.records import ChangeEvent, Memory
from ltm_desktop.core.settings.config import Settings
from ltm_desktop.core.uses import UseCounter


class ServiceParts:
    """The service provides the attributes below."""

    store: MemoryStore
    settings: Settings
    events: EventHub
    now: Callable[[], float]
    _write_lock: threading.RLock
    _uses: UseCounter
    _current_on_conflict: Callable[[], AbstractContextManager[None]]
    _event: Callable[[Memory, str, str], ChangeEvent]

"""Opening a data dir: a process's ``Launch`` -> its store (SQLite, or PostgreSQL with the
offline outbox) -> its service. The composition root every process goes through; it sits
below the agent side, whose workers a long-lived process hands in (``agent.long_lived``)."""

from ltm_desktop.launching.opened import OpenedService, launch_identity
from ltm_desktop.launching.opening import (
    Workers,
    open_launch,
    open_launch_briefly,
    open_service,
    open_service_briefly,
)
from ltm_desktop.launching.stores import AGENT_CONNECT_TIMEOUT_S, open_launch_store

__all__ = [
    "AGENT_CONNECT_TIMEOUT_S",
    "OpenedService",
    "Workers",
    "launch_identity",
    "open_launch",
    "open_launch_briefly",
    "open_launch_store",
    "open_service",
    "open_service_briefly",
]

"""What the service tells about its database (``MemoryService.database``): where it is,
its schema version, and its health."""

from __future__ import annotations

from ltm_desktop.core.backend import MemoryStore, StoreHealth


class DatabaseInfo:
    """The store's facts, for people, logs and the ``health`` method."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store

    @property
    def location(self) -> str:
        """The database file (or what stands for it), for people and logs."""
        return self.store.location

    @property
    def schema_version(self) -> int:
        return self.store.schema_version

    def health(self) -> StoreHealth:
        """Problems that fail or lose writes, and when a write is durable."""
        return self.store.health()

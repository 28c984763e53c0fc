"""What the service tells about its database (``MemoryService.database``): where it is,
its schema version, and its health."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from ltm_desktop.core.backend import MemoryStore, StoreHealth


@runtime_checkable
class ServerStore(Protocol):
    """A store on a database server (PostgreSQL), which has a version of its own."""

    @property
    def server_version(self) -> int:
        """The server's version number (150004 for 15.4)."""
        ...


class DatabaseInfo:
    """The store's facts, for people, logs and the ``health`` method."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store

    @property
    def location(self) -> str:
        """The database file (or what stands for it), for people and logs."""
        return self.store.location

    @property
    def server_version(self) -> int | None:
        """The database server's version number (150004 for 15.4); None for a file."""
        store = self.store
        return store.server_version if isinstance(store, ServerStore) else None

    @property
    def described(self) -> str:
        """The location for people, with a server's major version ("PostgreSQL 15 at
        db.example:5432/ltm"); never a password (the location has none)."""
        version = self.server_version
        if version is None:
            return self.location
        engine, at, where = self.location.partition(" at ")
        return f"{engine} {version // 10000}{at}{where}" if at else self.location

    @property
    def schema_version(self) -> int:
        return self.store.schema_version

    def health(self) -> StoreHealth:
        """Problems that fail or lose writes, and when a write is durable."""
        return self.store.health()

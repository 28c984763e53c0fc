"""The SQLite backend: the only package that imports sqlite3."""

from ltm_desktop.store import backup
from ltm_desktop.store.copying import SqliteRows, SqliteTarget
from ltm_desktop.store.sqlite_store import SqliteStore, open_store

__all__ = ["SqliteRows", "SqliteStore", "SqliteTarget", "backup", "open_store"]

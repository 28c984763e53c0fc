"""A service's start cut short by losing the database server (between the connection and
the housekeeping) can run again once it answers: each thread it starts is started once."""

from __future__ import annotations

import threading
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, cast

import pytest

from ltm_desktop.core.backend import MemoryStore, WriteTxn
from ltm_desktop.core.errors import DatabaseUnreachable
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.paths import DataPaths
from ltm_desktop.store import open_store


class LosesTheServerOnce:
    """A real SQLite store whose first write transaction finds the server gone."""

    def __init__(self, store: MemoryStore) -> None:
        self._store = store
        self.lost = True

    def write(self) -> AbstractContextManager[WriteTxn]:
        if self.lost:
            self.lost = False
            raise DatabaseUnreachable("lost PostgreSQL at db.example:5432/ltm: shutting down")
        return self._store.write()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


def _threads(name: str) -> int:
    return sum(1 for t in threading.enumerate() if t.name == name and t.is_alive())


def test_a_start_cut_short_runs_again_once(tmp_path: Path) -> None:
    paths = DataPaths(tmp_path / "data")
    paths.data_dir.mkdir()
    store = LosesTheServerOnce(open_store(paths.db_path, paths.backup_dir))
    service = MemoryService(cast(MemoryStore, store), paths)
    try:
        with pytest.raises(DatabaseUnreachable):
            service.start(follow=True)
        assert _threads("ltm-memory-md") == 0  # cut short before the files' worker
        service.start(follow=True)  # the server answers again
        assert _threads("ltm-use-counter") == 1  # started by both calls' first step: once
        assert _threads("ltm-memory-md") == 1
    finally:
        service.close()

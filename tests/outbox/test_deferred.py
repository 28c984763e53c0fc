"""A store opened while its server was away: calls fail at once until it connects, and a
change feed asked for meanwhile (the app's window subscribes at start) wakes its
subscribers once it does, then with the real store's feed."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from ltm_desktop.core.backend import MemoryStore
from ltm_desktop.core.errors import DatabaseUnreachable
from ltm_desktop.core.settings.paths import DataPaths
from ltm_desktop.outbox import DeferredStore
from ltm_desktop.store import open_store

DOWN = "cannot reach PostgreSQL at db.example:5432/ltm: connection refused"


def test_calls_fail_at_once_until_connected_and_the_feed_wakes_from_then(
    tmp_path: Path,
) -> None:
    paths = DataPaths(tmp_path / "data")
    paths.data_dir.mkdir()
    reachable = threading.Event()

    def opener() -> MemoryStore:
        if not reachable.is_set():
            raise DatabaseUnreachable(DOWN)
        return open_store(paths.db_path, paths.backup_dir)

    deferred = DeferredStore(opener, "PostgreSQL at db.example:5432/ltm", DOWN)
    try:
        store = deferred.as_store()
        with pytest.raises(DatabaseUnreachable, match="connection refused"):
            store.data_version()
        woken = threading.Event()
        store.change_feed().subscribe(woken.set)  # before the server answers: kept
        with pytest.raises(DatabaseUnreachable):
            deferred.connect()
        assert not woken.is_set()
        reachable.set()
        deferred.connect()
        assert woken.wait(10)  # the first wake: catch up on what was committed meanwhile
        assert isinstance(store.data_version(), int)
    finally:
        deferred.close()

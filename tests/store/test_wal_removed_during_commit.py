"""A commit that lands on a WAL no longer at the database's path is an error, not an
acknowledgement: the guard looks again after the commit (as it does before)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ltm_desktop.core.backend import AuditEntry
from ltm_desktop.core.errors import DatabaseReplaced
from ltm_desktop.core.records import AuditAction
from ltm_desktop.store import open_store


def test_a_wal_removed_while_a_write_is_in_flight_fails_that_write(tmp_path: Path) -> None:
    store = open_store(tmp_path / "ltm.sqlite", tmp_path / "backups")
    try:
        store.ensure_project("proj_a", "/srv/a", "a")  # the WAL exists, and is the guard's
        entry = AuditEntry(1.0, "mem_x", "proj_a", "t", AuditAction.CREATED, None, {})

        def in_flight() -> None:
            with store.write() as txn:
                txn.record(entry)
                (tmp_path / "ltm.sqlite-wal").unlink()  # after the look before, before the commit

        with pytest.raises(DatabaseReplaced) as info:
            in_flight()
        assert "removed or replaced" in str(info.value)
        assert any("removed or replaced" in p for p in store.health().problems)
    finally:
        store.close()

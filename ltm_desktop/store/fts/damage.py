"""What one store knows to be wrong with its search tables, and their repair.

Found by the full ``verify``, or by a search that failed: then the search's error names
the table and the repair (not a bare "database disk image is malformed"), and ``health``
reports it until a search of that table works again (repaired by another process) or
this store repairs it. The checks run on the writer (``search_integrity``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Protocol, TypeVar

from ltm_desktop.core.backend import SearchRepair
from ltm_desktop.core.errors import DatabaseBusy, DatabaseReplaced, SearchIndexDamaged, StorageError
from ltm_desktop.store.backup import backup_before
from ltm_desktop.store.fts import integrity as search_integrity

T = TypeVar("T")


class OnWriter(Protocol):
    def __call__(self, work: Callable[[sqlite3.Connection], T]) -> T: ...


class SearchDamage:
    """``on_writer`` runs a check on the writer between writes; ``write`` is the store's
    write transaction; repairs are backed up into ``backup_dir`` first."""

    def __init__(
        self,
        on_writer: OnWriter,
        write: Callable[[], AbstractContextManager[sqlite3.Connection]],
        backup_dir: Path,
    ) -> None:
        self._on_writer = on_writer
        self._write = write
        self._backup_dir = backup_dir
        # table -> what is wrong with it; replaced, never changed in place (reader threads
        # and health read it)
        self._known: dict[str, str] = {}

    def problems(self) -> tuple[str, ...]:
        return tuple(self._known.values())

    def searched(self, read: Callable[[], T], tables: list[str]) -> T:
        """``read`` (a search of ``tables``, which it fills in); a failure is told apart."""
        try:
            found = read()
        except (DatabaseBusy, DatabaseReplaced):
            raise
        except StorageError as exc:
            raise self._diagnosed(tables, exc) from exc
        known = self._known
        if any(name in known for name in tables):
            self._known = {k: v for k, v in known.items() if k not in tables}
        return found

    def _diagnosed(self, tables: list[str], failure: StorageError) -> StorageError:
        unknown = [name for name in tables if name not in self._known]
        if unknown:
            try:
                damage = self._on_writer(lambda c: search_integrity.find_damage(c, unknown))
            except StorageError:
                return failure
            self._known = {**self._known, **{d.table.name: d.describe() for d in damage}}
        known = self._known
        found = [known[name] for name in tables if name in known]
        return SearchIndexDamaged("; ".join(found)) if found else failure

    def verify(self) -> list[str]:
        """Every search table's problems (all tables are checked: verify's cost)."""
        damage = self._on_writer(search_integrity.find_damage)
        self._known = {d.table.name: d.describe() for d in damage if d.breaks_search}
        return [d.describe() for d in damage]

    def repair(self) -> SearchRepair:
        """The caller holds the store's write lock, so nothing writes between the check,
        the backup and the rebuild in this process."""
        damage = self._on_writer(search_integrity.find_damage)
        self._known = {}
        if not damage:
            return SearchRepair()
        backup = self._on_writer(lambda c: backup_before(c, self._backup_dir, "repair"))
        with self._write() as conn:
            for found in damage:
                search_integrity.rebuild(conn, found.table)
        return SearchRepair(tuple(d.table.label for d in damage), str(backup))

"""Every scope's vectors in one process, for the readers of any engine: each search takes
a scope's latest version (bringing it up to date first) and never waits for another.

An engine hands over how to read a scope's index rows changed after a ``seq``
(``Changes``): SQLite's ``store.vectors.scope_index.changed_rows``, PostgreSQL's
``postgres.vectors``. Rows are (memory_pk, model, vector, seq, erased), in ``seq`` order.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from ltm_desktop.engine.vectors.scope_vectors import ScopeVectors
from ltm_desktop.engine.vectors.snapshot import VectorSnapshot

Changes = Callable[[int], list[tuple[Any, ...]]]  # seq -> the scope's rows changed after it


class VectorScopes:
    """Each (scope, model)'s ``ScopeVectors``, made on first use."""

    def __init__(self) -> None:
        self._scopes: dict[tuple[int, str], ScopeVectors] = {}
        self._lock = threading.Lock()  # the dict of scopes only

    def snapshot(self, project_pk: int, model: str, changes: Changes) -> VectorSnapshot:
        """The scope's vectors with every change ``changes`` returns (one index seek when none).

        Changes are read without a lock; two threads may read the same ones, and the
        second finds them applied. A scope's first load, the whole scope, is read by one
        thread while the others wait for it."""
        with self._lock:
            scope = self._scopes.get((project_pk, model))
            if scope is None:
                scope = self._scopes[(project_pk, model)] = ScopeVectors(model)
        latest = scope.snapshot
        if latest.seq:
            rows = changes(latest.seq)
            return scope.update(rows) if rows else latest
        with scope.loading:
            rows = changes(scope.snapshot.seq)
            return scope.update(rows) if rows else scope.snapshot

    def memory_bytes(self) -> int:
        """What the latest versions' arrays take (for the benchmark)."""
        with self._lock:
            scopes = list(self._scopes.values())
        return sum(scope.snapshot.nbytes() for scope in scopes)

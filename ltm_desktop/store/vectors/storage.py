"""SQLite's vector index: every scope's vectors (``engine.vectors``: int8 codes, immutable
snapshots, searched in numpy) kept in step with ``memory_index`` by its ``seq``.

The vectors themselves, their quantization and their snapshots are the engines' shared
code (``engine.vectors``); what is SQLite's is reading a scope's changed rows
(``scope_index.changed_rows``).
"""

from __future__ import annotations

import sqlite3

from ltm_desktop.engine.vectors.scope_vectors import (
    MIN_DEAD,
    RESCORED,
    ScopeVectors,
    VectorSnapshot,
    quantize,
)
from ltm_desktop.engine.vectors.scopes import VectorScopes
from ltm_desktop.store.vectors.scope_index import changed_rows

__all__ = ["MIN_DEAD", "RESCORED", "ScopeVectors", "VectorIndex", "VectorSnapshot", "quantize"]


class VectorIndex:
    """Every scope's vectors for the readers: each search takes a scope's latest version
    (bringing it up to date first) and never waits for another search."""

    def __init__(self) -> None:
        self._scopes = VectorScopes()

    def snapshot(self, conn: sqlite3.Connection, project_pk: int, model: str) -> VectorSnapshot:
        """The scope's vectors with every change ``conn`` sees (one index seek when none)."""
        return self._scopes.snapshot(
            project_pk, model, lambda seq: changed_rows(conn, project_pk, seq, "model, vector")
        )

    def memory_bytes(self) -> int:
        """What the latest versions' arrays take (for the benchmark)."""
        return self._scopes.memory_bytes()

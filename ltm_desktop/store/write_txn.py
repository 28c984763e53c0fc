"""SqliteWriteTxn: the ``core.backend.WriteTxn`` primitives on the writer's open transaction.

It maps the core's ids (memory and project ids) to rows and tables, and keeps the
derived state in step: tag rows, the scope's FTS table, token sets and vectors.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Collection, Sequence
from typing import Any

from ltm_desktop.core.backend import AuditEntry
from ltm_desktop.core.inbox.proposals import ExtractionRun, Proposal
from ltm_desktop.core.records import Memory
from ltm_desktop.engine.vectors.scope_vectors import quantize
from ltm_desktop.store import erasing, inbox
from ltm_desktop.store import memory_writes as writes
from ltm_desktop.store.audit.log import record_audits
from ltm_desktop.store.fts.search import near_duplicate_candidates
from ltm_desktop.store.fts.tables import MemoryTables, memory_table
from ltm_desktop.store.vectors.scope_index import ScopeTokenSets

PkOf = Callable[[sqlite3.Connection, str], int | None]
WritablePk = Callable[[sqlite3.Connection, str, float], int]


class SqliteWriteTxn:
    """Valid only inside the ``SqliteStore.write`` block that made it."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        *,
        pk_of: PkOf,
        writable_pk: WritablePk,
        tables: MemoryTables,
        token_sets: ScopeTokenSets,
    ) -> None:
        self._conn = conn
        self._pk_of = pk_of
        self._writable_pk = writable_pk
        self._tables = tables
        self._token_sets = token_sets
        self._rows: dict[str, tuple[int, int]] = {}  # memory id -> (pk, project pk)
        self._pks: dict[str, int] = {}  # project id -> pk (a scope's row never goes away)
        self._ready: set[int] = set()  # project pks whose FTS table exists
        self._merge: set[int] = set()  # project pks whose FTS table lost an erased row

    def _pk(self, project_id: str) -> int | None:
        pk = self._pks.get(project_id)
        if pk is None:
            pk = self._pk_of(self._conn, project_id)
            if pk is not None:
                self._pks[project_id] = pk
        return pk

    def _table(self, project_pk: int) -> str:
        if project_pk not in self._ready:
            self._tables.ensure(self._conn, project_pk)
            self._ready.add(project_pk)
        return memory_table(project_pk)

    def _row(self, memory_id: str) -> tuple[int, int]:
        row = self._rows.get(memory_id)
        if row is None:
            pk, project_pk, _ = writes.load_memory(self._conn, memory_id)
            row = self._rows[memory_id] = (pk, project_pk)
        return row

    def get_memory(self, memory_id: str) -> Memory:
        pk, project_pk, memory = writes.load_memory(self._conn, memory_id)
        self._rows[memory_id] = (pk, project_pk)
        return memory

    def find_active(self, project_id: str, signature: str) -> Memory | None:
        project_pk = self._pk(project_id)
        if project_pk is None:
            return None
        found = writes.find_active(self._conn, project_pk, signature)
        if found is None:
            return None
        pk, memory = found
        self._rows[memory.id] = (pk, project_pk)
        return memory

    def near_duplicates(
        self,
        project_id: str,
        tokens: Collection[str],
        at_least: int,
        min_tokens: float,
        max_tokens: float,
    ) -> list[tuple[str, str]]:
        project_pk = self._pk(project_id)
        if project_pk is None:
            return []
        sets = self._token_sets.current(self._conn, project_pk)
        return near_duplicate_candidates(
            self._conn, project_pk, sets.holding(tokens, at_least), (min_tokens, max_tokens)
        )

    def insert_memory(
        self, memory: Memory, tokens: Collection[str], vector: tuple[str, bytes] | None = None
    ) -> None:
        project_pk = self._scope_pk(memory.project_id, memory.created_at)
        self._table(project_pk)
        stored = None if vector is None else (vector[0], quantize(vector[1]))
        pk = writes.insert_memory(self._conn, project_pk, memory, tokens, stored)
        self._rows[memory.id] = (pk, project_pk)

    def active_signatures(self, project_id: str, signatures: Collection[str]) -> set[str]:
        project_pk = self._pk(project_id)
        if project_pk is None:
            return set()
        return writes.active_signatures(self._conn, project_pk, list(signatures))

    def insert_memories(self, batch: Sequence[tuple[Memory, Collection[str]]]) -> None:
        if not batch:
            return
        project_id = batch[0][0].project_id
        if any(memory.project_id != project_id for memory, _ in batch):
            raise ValueError("a batch of new memories is of one scope")
        project_pk = self._scope_pk(project_id, batch[0][0].created_at)
        self._table(project_pk)
        pks = writes.insert_memories(self._conn, project_pk, batch)
        for pk, (memory, _) in zip(pks, batch, strict=True):
            self._rows[memory.id] = (pk, project_pk)

    def save_memory(
        self, before: Memory, after: Memory, tokens: Collection[str] | None = None
    ) -> None:
        pk, project_pk = self._row(before.id)
        writes.save_memory(self._conn, pk, project_pk, before, after, tokens)

    def set_vector(self, memory_id: str, model: str, vector: bytes) -> None:
        pk, project_pk = self._row(memory_id)
        writes.set_index(self._conn, pk, project_pk, vector=(model, quantize(vector)))

    def set_tokens(self, memory_id: str, tokens: Collection[str]) -> None:
        pk, project_pk = self._row(memory_id)
        writes.set_index(self._conn, pk, project_pk, tokens=tokens)

    def record(self, entry: AuditEntry) -> None:
        self.record_all([entry])

    def record_all(self, entries: Sequence[AuditEntry]) -> None:
        record_audits(self._conn, [(self._recorded_pk(entry), entry) for entry in entries])

    def _recorded_pk(self, entry: AuditEntry) -> int:
        project_pk = self._pk(entry.project_id)
        if project_pk is None:
            raise ValueError(f"no scope {entry.project_id} to record {entry.action} in")
        return project_pk

    def expired_ids(self, project_id: str | None, now: float) -> list[str]:
        if project_id is None:
            return writes.expired_ids(self._conn, None, now)
        project_pk = self._pk(project_id)
        return [] if project_pk is None else writes.expired_ids(self._conn, project_pk, now)

    # -- erasure ---------------------------------------------------------------

    def trashed_ids(self, project_id: str) -> list[str]:
        project_pk = self._pk(project_id)
        return [] if project_pk is None else erasing.trashed_ids(self._conn, project_pk)

    def erase_memory(self, memory_id: str) -> None:
        pk, project_pk = self._row(memory_id)
        has_table = bool(self._tables.existing(self._conn, [project_pk]))
        erasing.erase_memory(self._conn, pk, project_pk, has_table)
        if has_table:
            self._merge.add(project_pk)
        del self._rows[memory_id]
        self._token_sets.reset()  # they may hold the row's token set

    def finish(self) -> None:
        """Before the commit: merge the search indexes that erased rows were deleted from
        (once per scope, however many rows)."""
        for project_pk in sorted(self._merge):
            erasing.merge_index(self._conn, project_pk)
        self._merge.clear()

    def approved_into(self, memory_id: str) -> list[str]:
        return erasing.approved_into(self._conn, memory_id)

    def erase_proposal(self, proposal_id: str) -> None:
        erasing.erase_proposal(self._conn, proposal_id)

    def tombstone_history(self, memory_id: str, tombstone: dict[str, Any]) -> int:
        return erasing.tombstone_history(self._conn, memory_id, tombstone)

    # -- the review inbox and extraction runs -------------------------------

    def _scope_pk(self, project_id: str, now: float) -> int:
        """The scope's key, creating its row (and table) on its first write."""
        project_pk = self._pk(project_id)
        if project_pk is None:
            project_pk = self._writable_pk(self._conn, project_id, now)
            self._pks[project_id] = project_pk
            self._ready.add(project_pk)
        return project_pk

    def get_proposal(self, proposal_id: str) -> Proposal:
        return inbox.load_proposal(self._conn, proposal_id)[1]

    def pending_proposal(self, project_id: str, signature: str) -> Proposal | None:
        project_pk = self._pk(project_id)
        if project_pk is None:
            return None
        return inbox.pending_with_signature(self._conn, project_pk, signature)

    def pending_merges(self, project_id: str) -> list[Proposal]:
        project_pk = self._pk(project_id)
        if project_pk is None:
            return []
        return inbox.merge_proposals(self._conn, project_pk, "proposed")

    def insert_proposal(self, proposal: Proposal) -> None:
        project_pk = self._scope_pk(proposal.project_id, proposal.created_at)
        inbox.insert_proposal(self._conn, project_pk, proposal)

    def save_proposal(self, before: Proposal, after: Proposal) -> None:
        inbox.save_proposal(self._conn, before, after)

    def insert_run(self, run: ExtractionRun) -> None:
        project_pk = self._scope_pk(run.project_id, run.started_at)
        inbox.insert_run(self._conn, project_pk, run)

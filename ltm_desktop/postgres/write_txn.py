"""PgWriteTxn: the ``core.backend.WriteTxn`` primitives on the writer's open transaction.

It maps the core's ids to rows and keeps what is derived from a memory in step (tags,
files, the search document, token sets and vectors), as SQLite's ``SqliteWriteTxn`` does.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any

from ltm_desktop.core.backend import AuditEntry
from ltm_desktop.core.inbox.proposals import ExtractionRun, Proposal
from ltm_desktop.core.records import Memory
from ltm_desktop.postgres import erasing, inbox
from ltm_desktop.postgres import memory_writes as writes
from ltm_desktop.postgres.audit.log import record_audits, tombstone_history
from ltm_desktop.postgres.conn import Conn
from ltm_desktop.postgres.scopes import ScopeKeys
from ltm_desktop.postgres.token_sets import Ahead, PgScopeTokenSets, near_duplicates
from ltm_desktop.postgres.vectors import set_index


class PgWriteTxn:
    """Valid only inside the ``PostgresStore.write`` block that made it."""

    def __init__(
        self,
        conn: Conn,
        keys: ScopeKeys,
        token_sets: PgScopeTokenSets,
        head: Callable[[], tuple[int, str]] | None = None,
    ) -> None:
        """``head``: the audit chain's head as the writer's lock found it, when first asked
        (None: read it when an event is recorded); ``token_sets``: the writer's, for near
        duplicates."""
        self._conn = conn
        self._keys = keys
        self._token_sets = token_sets
        self._head = head  # valid until this transaction appends or tombstones an event
        self._rows: dict[str, tuple[int, int]] = {}  # memory id -> (pk, project pk)
        self._new: dict[str, tuple[Callable[[], int], int]] = {}  # pk not read yet
        self._ahead: Ahead | None = None  # token set changes asked for with find_active
        self._pks: dict[str, int] = {}  # project id -> pk, as seen in this transaction

    def _pk(self, project_id: str) -> int | None:
        pk = self._pks.get(project_id)
        if pk is None:
            pk = self._keys.pk(self._conn, project_id, remember=False)
            if pk is not None:
                self._pks[project_id] = pk
        return pk

    def _scope_pk(self, project_id: str, now: float) -> int:
        """The scope's key, creating its row on its first write."""
        pk = self._pk(project_id)
        if pk is None:
            pk = self._pks[project_id] = self._keys.writable_pk(self._conn, project_id, now)
        return pk

    def _row(self, memory_id: str) -> tuple[int, int]:
        row = self._rows.get(memory_id)
        if row is None and memory_id in self._new:
            pk_of, project_pk = self._new.pop(memory_id)
            row = self._rows[memory_id] = (pk_of(), project_pk)
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
        # An add asks for near duplicates next: their changes go with this read.
        self._ahead = self._token_sets.ahead(self._conn, project_pk)
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
        ahead, self._ahead = self._ahead, None
        return near_duplicates(
            self._conn,
            self._token_sets,
            project_pk,
            tokens,
            at_least,
            min_tokens,
            max_tokens,
            ahead,
        )

    def insert_memory(
        self, memory: Memory, tokens: Collection[str], vector: tuple[str, bytes] | None = None
    ) -> None:
        project_pk = self._scope_pk(memory.project_id, memory.created_at)
        pk_of = writes.insert_memory(self._conn, project_pk, memory, tokens, vector)
        self._new[memory.id] = (pk_of, project_pk)  # read only if asked for

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
        set_index(self._conn, pk, project_pk, vector=(model, vector))

    def set_tokens(self, memory_id: str, tokens: Collection[str]) -> None:
        pk, project_pk = self._row(memory_id)
        set_index(self._conn, pk, project_pk, tokens=tokens)

    def record(self, entry: AuditEntry) -> None:
        self.record_all([entry])

    def record_all(self, entries: Sequence[AuditEntry]) -> None:
        start, self._head = self._head, None
        pairs = [(self._recorded_pk(e), e) for e in entries]
        record_audits(self._conn, pairs, None if start is None else start())

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
        erasing.erase_memory(self._conn, pk, project_pk)
        del self._rows[memory_id]

    def approved_into(self, memory_id: str) -> list[str]:
        return erasing.approved_into(self._conn, memory_id)

    def erase_proposal(self, proposal_id: str) -> None:
        erasing.erase_proposal(self._conn, proposal_id)

    def tombstone_history(self, memory_id: str, tombstone: dict[str, Any]) -> int:
        self._head = None  # the head's row may be one of those tombstoned
        return tombstone_history(self._conn, memory_id, tombstone)

    # -- the review inbox and extraction runs -------------------------------

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

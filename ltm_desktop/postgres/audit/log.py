"""The audit history in PostgreSQL: appended as one hash chain (``engine.chain``, rows as
``engine.audit_log`` makes them, so a history copied from SQLite verifies here and back),
read per memory, per scope and since a point, and checked link by link.

The table refuses every change but an erasure's tombstone, and every delete, with the
trigger ``audit_is_append_only`` (``postgres.schema``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from ltm_desktop.core.backend import AuditEntry
from ltm_desktop.core.errors import NotFound, echoed
from ltm_desktop.core.records import AuditEvent
from ltm_desktop.engine.audit_log import COLUMNS, WIDTH, chained_rows
from ltm_desktop.engine.chain import GENESIS, Broken
from ltm_desktop.engine.rows import Row, audit_from_row
from ltm_desktop.engine.verifying import follow_chain
from ltm_desktop.postgres.conn import Conn
from ltm_desktop.postgres.database import PgDatabase
from ltm_desktop.postgres.rows import AUDIT_COLUMNS, AUDIT_FROM
from ltm_desktop.postgres.scopes import ScopeKeys

__all__ = ["PgAuditReads", "check_chain", "head", "record_audits", "tombstone_history"]

T = TypeVar("T")
_INSERT = f"INSERT INTO audit ({COLUMNS}) VALUES ({', '.join(['%s'] * WIDTH)})"
CHAIN_BATCH = 2_000  # events fetched at a time while the chain is followed


def head(conn: Conn) -> tuple[int, str]:
    """(seq, hash) of the newest event; (0, GENESIS) when there is none."""
    return head_of(conn.execute("SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1").fetchone())


def head_of(row: Row | None) -> tuple[int, str]:
    """(seq, hash) of the newest event's row; (0, GENESIS) when there is none."""
    return (0, GENESIS) if row is None else (int(row[0]), str(row[1] or GENESIS))


def record_audits(
    conn: Conn,
    entries: Sequence[tuple[int, AuditEntry]],
    start: tuple[int, str] | None = None,
) -> None:
    """Append (scope pk, event) pairs in order, each linked to the one before it, the
    first to ``start`` (the head as the transaction's lock found it) or else the head read
    now. The caller holds the writer's lock (``PgDatabase.writing``): no other event can
    come in between."""
    if not entries:
        return
    rows = chained_rows(head(conn) if start is None else start, entries)
    if len(rows) == 1:  # in a write's pipeline: sent with what follows, the COMMIT
        conn.execute(_INSERT, rows[0])
        return
    with conn.cursor() as cursor:
        cursor.executemany(_INSERT, rows)


def tombstone_history(conn: Conn, memory_id: str, tombstone: dict[str, Any]) -> int:
    """Replace every event of the erased memory's before and after with ``tombstone``
    (``erased_at``, ``erased_by``) and drop their nonces: the only update the trigger
    lets through. How many events (counted from RETURNING: a write transaction runs in
    pipeline mode, where a statement's rowcount is not known until its result is read)."""
    rows = conn.execute(
        "UPDATE audit SET before = NULL, after = %s, nonce = NULL WHERE memory_id = %s RETURNING 1",
        (json.dumps(tombstone, ensure_ascii=False), memory_id),
    ).fetchall()
    return len(rows)


_CHAIN_ROWS = f"SELECT {COLUMNS} FROM audit WHERE seq > %s ORDER BY seq"


def check_chain(conn: Conn, last: int | None = None) -> tuple[Broken | None, str]:
    """(the first broken event or None, the head hash). ``last``: check only the newest
    ``last`` events (linked to the hash stored before them), for a quick look. The
    events are read through a server-side cursor, a batch at a time: a long history is
    never held whole in memory."""
    start, previous = 0, GENESIS
    if last is not None:
        row = conn.execute(
            "SELECT seq, hash FROM audit WHERE seq <= (SELECT max(seq) FROM audit) - %s "
            "ORDER BY seq DESC LIMIT 1",
            (last,),
        ).fetchone()
        if row is not None:
            start, previous = int(row[0]), str(row[1])
    with conn.cursor(name="ltm_audit_chain") as cursor:
        cursor.itersize = CHAIN_BATCH
        cursor.execute(_CHAIN_ROWS, (start,))
        return follow_chain(cursor, previous)


class PgAuditReads:
    """Who changed what, when: per memory, per scope, and since a point in the log."""

    def __init__(self, db: PgDatabase, keys: ScopeKeys) -> None:
        self._db = db
        self._keys = keys

    def _scope(self, project_id: str, work: Callable[[Conn, int], T], empty: T) -> T:
        """``work`` on the scope's pk; ``empty`` for a scope never written to."""

        def read(conn: Conn) -> T:
            pk = self._keys.pk(conn, project_id)
            return empty if pk is None else work(conn, pk)

        return self._db.read(read)

    def memory_history(self, memory_id: str) -> list[AuditEvent]:
        """The memory's events, oldest first; NotFound for an id never stored."""

        def work(conn: Conn) -> list[AuditEvent]:
            rows = conn.execute(
                f"SELECT {AUDIT_COLUMNS} FROM {AUDIT_FROM} WHERE a.memory_id = %s ORDER BY a.seq",
                (memory_id,),
            ).fetchall()
            if not rows:
                known = conn.execute("SELECT 1 FROM memories WHERE id = %s", (memory_id,))
                if known.fetchone() is None:
                    raise NotFound(f"no memory has the id {echoed(memory_id)}")
            return [audit_from_row(row) for row in rows]

        return self._db.read(work)

    @staticmethod
    def _where(
        project_pk: int,
        actor: str | None,
        before_seq: int | None = None,
        person: str | None = None,
    ) -> tuple[str, list[Any]]:
        """The scope's events (of one actor, of one person): a range of
        ``audit_by_project`` or, with an actor, of ``audit_by_actor`` (a person:
        ``audit_by_person``)."""
        clauses: list[str] = ["project_pk = %s"]
        params: list[Any] = [project_pk]
        if actor is not None:
            clauses.append("actor = %s")
            params.append(actor)
        if person is not None:
            clauses.append("person = %s")
            params.append(person)
        if before_seq is not None:
            clauses.append("seq < %s")
            params.append(before_seq)
        return " AND ".join(clauses), params

    def project_history(
        self,
        project_id: str,
        limit: int,
        before_seq: int | None,
        actor: str | None,
        offset: int,
        person: str | None = None,
    ) -> list[AuditEvent]:
        """Newest first; page with ``offset`` or ``before_seq`` (the smallest seq already
        seen). The page's seqs are found in the index alone, then only its events read."""

        def work(conn: Conn, pk: int) -> list[AuditEvent]:
            where, params = self._where(pk, actor, before_seq, person)
            rows = conn.execute(
                f"SELECT {AUDIT_COLUMNS} FROM (SELECT seq FROM audit WHERE {where} "
                "ORDER BY seq DESC LIMIT %s OFFSET %s) AS page "
                "JOIN audit AS a ON a.seq = page.seq JOIN projects AS p ON p.pk = a.project_pk "
                "ORDER BY a.seq DESC",
                (*params, limit, offset),
            ).fetchall()
            return [audit_from_row(row) for row in rows]

        return self._scope(project_id, work, [])

    def count_history(self, project_id: str, actor: str | None, person: str | None = None) -> int:
        def work(conn: Conn, pk: int) -> int:
            where, params = self._where(pk, actor, None, person)
            row = conn.execute(f"SELECT count(*) FROM audit WHERE {where}", params).fetchone()
            return int(row[0]) if row is not None else 0

        return self._scope(project_id, work, 0)

    def history_actors(self, project_id: str) -> list[str]:
        """Everyone with an event in the scope, in name order (code points, as SQLite
        sorts them, whatever the database's collation): one step of ``audit_by_actor``
        per actor, however many events each has."""

        def work(conn: Conn, pk: int) -> list[str]:
            rows = conn.execute(
                "WITH RECURSIVE who(actor) AS ("
                " SELECT (SELECT min(actor) FROM audit WHERE project_pk = %(pk)s)"
                " UNION ALL SELECT (SELECT min(actor) FROM audit WHERE project_pk = %(pk)s"
                " AND actor > who.actor) FROM who WHERE who.actor IS NOT NULL"
                ") SELECT actor FROM who WHERE actor IS NOT NULL",
                {"pk": pk},
            ).fetchall()
            return sorted(str(row[0]) for row in rows)

        return self._scope(project_id, work, [])

    def history_people(self, project_id: str) -> list[str]:
        """Every person with an event in the scope, in name order (code points), one step
        of ``audit_by_person`` per person; events from before people were recorded have
        none."""

        def work(conn: Conn, pk: int) -> list[str]:
            rows = conn.execute(
                "WITH RECURSIVE who(person) AS ("
                " SELECT (SELECT min(person) FROM audit WHERE project_pk = %(pk)s)"
                " UNION ALL SELECT (SELECT min(person) FROM audit WHERE project_pk = %(pk)s"
                " AND person > who.person) FROM who WHERE who.person IS NOT NULL"
                ") SELECT person FROM who WHERE person IS NOT NULL",
                {"pk": pk},
            ).fetchall()
            return sorted(str(row[0]) for row in rows)

        return self._scope(project_id, work, [])

    def last_events(self, memory_ids: Sequence[str], actions: Sequence[str]) -> list[AuditEvent]:
        """The newest event with one of ``actions`` for each of the memories."""
        if not memory_ids or not actions:
            return []

        def work(conn: Conn) -> list[AuditEvent]:
            rows = conn.execute(
                f"SELECT {AUDIT_COLUMNS} FROM {AUDIT_FROM} WHERE a.seq IN ("
                "SELECT max(seq) FROM audit WHERE memory_id = ANY(%s) AND action = ANY(%s) "
                "GROUP BY memory_id) ORDER BY a.seq",
                (list(memory_ids), list(actions)),
            ).fetchall()
            return [audit_from_row(row) for row in rows]

        return self._db.read(work)

    def events_after(self, seq: int, limit: int) -> list[AuditEvent]:
        """Events newer than ``seq``, oldest first (to follow other processes' writes)."""
        return self._db.read(
            lambda conn: [
                audit_from_row(row)
                for row in conn.execute(
                    f"SELECT {AUDIT_COLUMNS} FROM {AUDIT_FROM} WHERE a.seq > %s "
                    "ORDER BY a.seq LIMIT %s",
                    (seq, limit),
                ).fetchall()
            ]
        )

    def last_event_seq(self) -> int:
        row = self._db.read(
            lambda conn: conn.execute("SELECT coalesce(max(seq), 0) FROM audit").fetchone()
        )
        return int(row[0]) if row is not None else 0

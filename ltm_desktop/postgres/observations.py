"""Agent lifecycle observations on PostgreSQL: the row with its ``search`` document, and
the scope's lists (``store.observations`` and the observation reads of
``store.memory_reads``)."""

from __future__ import annotations

import secrets
from dataclasses import replace
from typing import Any

from ltm_desktop.core.errors import NotFound, echoed
from ltm_desktop.core.observations import ObservationPayload
from ltm_desktop.core.records import Observation
from ltm_desktop.engine.rows import observation_from_row
from ltm_desktop.postgres.conn import Conn
from ltm_desktop.postgres.database import PgDatabase
from ltm_desktop.postgres.fts.document import (
    OBSERVATION_DOCUMENT_SQL,
    observation_document_params,
)
from ltm_desktop.postgres.rows import OBSERVATION_COLUMNS, OBSERVATION_FROM
from ltm_desktop.postgres.scopes import ScopeKeys


def insert_observation(
    conn: Conn,
    project_pk: int,
    project_id: str,
    payload: ObservationPayload,
    actor: str,
    now: float,
) -> Observation:
    """The row, searchable at once (its ``search`` document is written with it)."""
    observation = Observation(
        id=f"obs_{int(now * 1000):011x}{secrets.token_hex(5)}",
        project_id=project_id,
        session_id=payload.session_id,
        kind=payload.kind,
        title=payload.title,
        narrative=payload.narrative,
        created_at=now,
        source=actor,
    )
    conn.execute(
        "INSERT INTO observations (id, project_pk, session_id, kind, title, narrative, "
        "created_at, source, search) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, "
        f"{OBSERVATION_DOCUMENT_SQL})",
        (
            observation.id,
            project_pk,
            observation.session_id,
            observation.kind.value,
            observation.title,
            observation.narrative,
            now,
            actor,
            *observation_document_params(observation.title, observation.narrative),
        ),
    )
    return observation


def load_observation(conn: Conn, observation_id: str) -> tuple[int, Observation]:
    """(pk, observation), forgotten or not; NotFound for an unknown id."""
    row = conn.execute(
        f"SELECT o.pk, {OBSERVATION_COLUMNS} FROM {OBSERVATION_FROM} WHERE o.id = %s",
        (observation_id,),
    ).fetchone()
    if row is None:
        raise NotFound(f"no observation has the id {echoed(observation_id)}")
    return int(row[0]), observation_from_row(row[1:])


def forget_observation(
    conn: Conn, observation_id: str, actor: str, now: float
) -> tuple[Observation, bool]:
    """Soft delete: the row stays (marked, with when and by whom); its search document is
    emptied (as SQLite drops its index row), so searches and lists never see it again.
    Returns (the observation, whether this call forgot it); one already forgotten is left
    as it is."""
    pk, before = load_observation(conn, observation_id)
    if before.disabled:
        return before, False
    conn.execute(
        "UPDATE observations SET disabled = 1, disabled_at = %s, disabled_by = %s, "
        "search = ''::tsvector WHERE pk = %s",
        (now, actor, pk),
    )
    return replace(before, disabled=True), True


def _observations_where(project_pk: int, session: str | None) -> tuple[str, list[Any]]:
    """The scope's listed observations (of one session): a range of
    ``observations_listed`` or ``observations_by_session``, in time order."""
    if session is None:
        return "o.project_pk = %s AND o.disabled = 0", [project_pk]
    return "o.project_pk = %s AND o.disabled = 0 AND o.session_id = %s", [project_pk, session]


def list_observations(
    conn: Conn, project_pk: int, limit: int, offset: int, session: str | None = None
) -> list[Observation]:
    where, params = _observations_where(project_pk, session)
    rows = conn.execute(
        f"SELECT {OBSERVATION_COLUMNS} FROM {OBSERVATION_FROM} WHERE {where} "
        "ORDER BY o.created_at DESC, o.pk DESC LIMIT %s OFFSET %s",
        (*params, limit, offset),
    ).fetchall()
    return [observation_from_row(row) for row in rows]


def count_observations(conn: Conn, project_pk: int, session: str | None) -> int:
    where, params = _observations_where(project_pk, session)
    row = conn.execute(f"SELECT count(*) FROM observations AS o WHERE {where}", params).fetchone()
    return 0 if row is None else int(row[0])


def observation_sessions(conn: Conn, project_pk: int, limit: int) -> list[str]:
    """The sessions of the scope's listed observations, the one active last first (ties
    by id, in code point order as SQLite's BINARY): a step of ``observations_by_session``
    per session, and one more for its newest observation (however many observations each
    session has)."""
    rows = conn.execute(
        "WITH RECURSIVE sessions(id) AS ("
        " SELECT (SELECT min(session_id) FROM observations"
        " WHERE project_pk = %(pk)s AND disabled = 0)"
        " UNION ALL SELECT (SELECT min(session_id) FROM observations WHERE project_pk = %(pk)s"
        " AND disabled = 0 AND session_id > sessions.id) FROM sessions WHERE id IS NOT NULL"
        ") SELECT id, (SELECT max(created_at) FROM observations WHERE project_pk = %(pk)s"
        " AND disabled = 0 AND session_id = sessions.id) AS last"
        ' FROM sessions WHERE id IS NOT NULL ORDER BY last DESC, id COLLATE "C" LIMIT %(limit)s',
        {"pk": project_pk, "limit": limit},
    ).fetchall()
    return [str(row[0]) for row in rows]


class PgObservations:
    """Observations of one database: written in a transaction of their own, read by scope
    (an unknown scope has none)."""

    def __init__(self, db: PgDatabase, keys: ScopeKeys) -> None:
        self._db = db
        self._keys = keys

    def add_observation(
        self, project_id: str, payload: ObservationPayload, actor: str, now: float
    ) -> Observation:
        with self._db.transaction() as conn:
            pk = self._keys.writable_pk(conn, project_id, now)
            return insert_observation(conn, pk, project_id, payload, actor, now)

    def get_observation(self, observation_id: str) -> Observation:
        return self._db.read(lambda c: load_observation(c, observation_id)[1])

    def forget_observation(
        self, observation_id: str, actor: str, now: float
    ) -> tuple[Observation, bool]:
        with self._db.transaction() as conn:
            return forget_observation(conn, observation_id, actor, now)

    def list_observations(
        self, project_id: str, limit: int, offset: int, session: str | None
    ) -> list[Observation]:
        def work(conn: Conn) -> list[Observation]:
            pk = self._keys.pk(conn, project_id)
            return [] if pk is None else list_observations(conn, pk, limit, offset, session)

        return self._db.read(work)

    def count_observations(self, project_id: str, session: str | None) -> int:
        def work(conn: Conn) -> int:
            pk = self._keys.pk(conn, project_id)
            return 0 if pk is None else count_observations(conn, pk, session)

        return self._db.read(work)

    def observation_sessions(self, project_id: str, limit: int) -> list[str]:
        def work(conn: Conn) -> list[str]:
            pk = self._keys.pk(conn, project_id)
            return [] if pk is None else observation_sessions(conn, pk, limit)

        return self._db.read(work)

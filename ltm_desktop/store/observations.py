"""Agent lifecycle observations: the row and its (shared, scope-tagged) index row."""

from __future__ import annotations

import secrets
import sqlite3
from dataclasses import replace

from ltm_desktop.core.errors import NotFound, echoed
from ltm_desktop.core.observations import ObservationPayload
from ltm_desktop.core.records import Observation
from ltm_desktop.store.fts.query import scope_token
from ltm_desktop.store.fts.text import index_text
from ltm_desktop.store.rows import OBSERVATION_COLUMNS, OBSERVATION_FROM, observation_from_row


def insert_observation(
    conn: sqlite3.Connection,
    project_pk: int,
    project_id: str,
    payload: ObservationPayload,
    actor: str,
    now: float,
) -> Observation:
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
    cursor = conn.execute(
        "INSERT INTO observations (id, project_pk, session_id, kind, title, narrative, "
        "created_at, source) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            observation.id,
            project_pk,
            observation.session_id,
            observation.kind.value,
            observation.title,
            observation.narrative,
            now,
            actor,
        ),
    )
    pk = int(cursor.lastrowid or 0)
    _index(conn, pk, project_pk, observation.title, observation.narrative)
    return observation


def _index(conn: sqlite3.Connection, pk: int, project_pk: int, title: str, narrative: str) -> None:
    conn.execute(
        "INSERT INTO observation_fts (rowid, title, narrative, scope) VALUES (?, ?, ?, ?)",
        (pk, index_text(title), index_text(narrative), scope_token(project_pk)),
    )


def reindex_observations(conn: sqlite3.Connection) -> int:
    """Fill the (new, empty) observation FTS table from the observations not forgotten, as
    ``insert_observation`` does; returns how many were indexed."""
    rows = conn.execute(
        "SELECT pk, project_pk, title, narrative FROM observations WHERE disabled = 0"
    )
    count = 0
    for pk, project_pk, title, narrative in rows:  # a cursor: one row in memory at a time
        _index(conn, pk, project_pk, title, narrative)
        count += 1
    return count


def load_observation(conn: sqlite3.Connection, observation_id: str) -> tuple[int, Observation]:
    """(pk, observation), forgotten or not; NotFound for an unknown id."""
    row = conn.execute(
        f"SELECT o.pk, {OBSERVATION_COLUMNS} FROM {OBSERVATION_FROM} WHERE o.id = ?",
        (observation_id,),
    ).fetchone()
    if row is None:
        raise NotFound(f"no observation has the id {echoed(observation_id)}")
    return int(row[0]), observation_from_row(row[1:])


def forget_observation(
    conn: sqlite3.Connection, observation_id: str, actor: str, now: float
) -> tuple[Observation, bool]:
    """Soft delete: the row stays (marked, with when and by whom); its index row goes, so
    searches and lists never see it again. Returns (the observation, whether this call
    forgot it); one already forgotten is left as it is."""
    pk, before = load_observation(conn, observation_id)
    if before.disabled:
        return before, False
    conn.execute(
        "UPDATE observations SET disabled = 1, disabled_at = ?, disabled_by = ? WHERE pk = ?",
        (now, actor, pk),
    )
    conn.execute("DELETE FROM observation_fts WHERE rowid = ?", (pk,))
    return replace(before, disabled=True), True

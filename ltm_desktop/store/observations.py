"""Writing agent lifecycle observations: the row and its (shared, scope-tagged) index row."""

from __future__ import annotations

import secrets
import sqlite3

from ltm_desktop.core.observations import ObservationPayload
from ltm_desktop.core.records import Observation
from ltm_desktop.store.fts_query import scope_token
from ltm_desktop.store.fts_text import index_text


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
    conn.execute(
        "INSERT INTO observation_fts (rowid, title, narrative, scope) VALUES (?, ?, ?, ?)",
        (
            cursor.lastrowid,
            index_text(observation.title),
            index_text(observation.narrative),
            scope_token(project_pk),
        ),
    )
    return observation

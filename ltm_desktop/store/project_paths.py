"""Projects' paths and moving a scope's observations, in SQLite (``core.projects.paths``)."""

from __future__ import annotations

import sqlite3

from ltm_desktop.core.errors import NotFound, echoed
from ltm_desktop.core.projects.paths import ProjectPath
from ltm_desktop.engine import project_paths as sql
from ltm_desktop.store.fts.query import scope_token
from ltm_desktop.store.fts.tables import OBSERVATION_TABLE

_OWNER = sql.owner_sql("?")
_OF_PROJECT = sql.of_project_sql("?")
_UPSERT = sql.upsert_sql("?")
_OF_MACHINE = sql.of_machine_sql("?")


def _pk(conn: sqlite3.Connection, project_id: str) -> int:
    row = conn.execute("SELECT pk FROM projects WHERE project_id = ?", (project_id,)).fetchone()
    if row is None:
        raise NotFound(f"no project has the id {echoed(project_id)}")
    return int(row[0])


def path_owner(conn: sqlite3.Connection, machine: str, path: str) -> ProjectPath | None:
    row = conn.execute(_OWNER, (machine, path)).fetchone()
    return None if row is None else sql.path_from_row(tuple(row))


def project_paths(conn: sqlite3.Connection, project_id: str) -> list[ProjectPath]:
    return [sql.path_from_row(tuple(r)) for r in conn.execute(_OF_PROJECT, (project_id,))]


def machine_paths(conn: sqlite3.Connection, machine: str) -> list[ProjectPath]:
    return [sql.path_from_row(tuple(r)) for r in conn.execute(_OF_MACHINE, (machine,))]


def record_path(
    conn: sqlite3.Connection,
    project_id: str,
    machine: str,
    path: str,
    now: float,
    pinned: bool,
) -> None:
    conn.execute(_UPSERT, (_pk(conn, project_id), machine, path, now, now, int(pinned)))


def move_observations(conn: sqlite3.Connection, source: str, target: str) -> int:
    """Every observation of ``source`` to ``target``, its search row's scope tag too."""
    source_pk, target_pk = _pk(conn, source), _pk(conn, target)
    conn.execute(
        f"UPDATE {OBSERVATION_TABLE} SET scope = ? "
        "WHERE rowid IN (SELECT pk FROM observations WHERE project_pk = ?)",
        (scope_token(target_pk), source_pk),
    )
    moved = conn.execute(
        "UPDATE observations SET project_pk = ? WHERE project_pk = ?", (target_pk, source_pk)
    ).rowcount
    return int(moved)

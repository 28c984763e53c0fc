"""Projects' paths and moving a scope's observations, in PostgreSQL (``core.projects.paths``)."""

from __future__ import annotations

from ltm_desktop.core.errors import NotFound, echoed
from ltm_desktop.core.projects.paths import ProjectPath
from ltm_desktop.engine import project_paths as sql
from ltm_desktop.postgres.conn import Conn

_OWNER = sql.owner_sql("%s")
_OF_PROJECT = sql.of_project_sql("%s")
_UPSERT = sql.upsert_sql("%s")
_OF_MACHINE = sql.of_machine_sql("%s")


def _pk(conn: Conn, project_id: str) -> int:
    row = conn.execute("SELECT pk FROM projects WHERE project_id = %s", (project_id,)).fetchone()
    if row is None:
        raise NotFound(f"no project has the id {echoed(project_id)}")
    return int(row[0])


def path_owner(conn: Conn, machine: str, path: str) -> ProjectPath | None:
    row = conn.execute(_OWNER, (machine, path)).fetchone()
    return None if row is None else sql.path_from_row(tuple(row))


def project_paths(conn: Conn, project_id: str) -> list[ProjectPath]:
    return [sql.path_from_row(tuple(r)) for r in conn.execute(_OF_PROJECT, (project_id,))]


def machine_paths(conn: Conn, machine: str) -> list[ProjectPath]:
    return [sql.path_from_row(tuple(r)) for r in conn.execute(_OF_MACHINE, (machine,))]


def record_path(
    conn: Conn, project_id: str, machine: str, path: str, now: float, pinned: bool
) -> None:
    conn.execute(_UPSERT, (_pk(conn, project_id), machine, path, now, now, int(pinned)))


def move_observations(conn: Conn, source: str, target: str) -> int:
    source_pk, target_pk = _pk(conn, source), _pk(conn, target)
    rows = conn.execute(  # counted from RETURNING: a write's rowcount is not known in pipeline mode
        "UPDATE observations SET project_pk = %s WHERE project_pk = %s RETURNING 1",
        (target_pk, source_pk),
    ).fetchall()
    return len(rows)

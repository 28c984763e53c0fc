"""Projects' paths (``core.projects.paths``) in SQL both engines run as written: the
placeholders are the engine's (``?`` or ``%s``), the statements the same."""

from __future__ import annotations

from ltm_desktop.core.projects.paths import ProjectPath

COLUMNS = "p.project_id, pp.machine, pp.path, pp.first_seen, pp.last_seen, pp.pinned"
FROM = "project_paths pp JOIN projects p ON p.pk = pp.project_pk"


def owner_sql(mark: str) -> str:
    return f"SELECT {COLUMNS} FROM {FROM} WHERE pp.machine = {mark} AND pp.path = {mark}"


def of_project_sql(mark: str) -> str:
    return f"SELECT {COLUMNS} FROM {FROM} WHERE p.project_id = {mark} ORDER BY pp.machine, pp.path"


def of_machine_sql(mark: str) -> str:
    return (
        f"SELECT {COLUMNS} FROM {FROM} WHERE pp.machine = {mark} "
        "ORDER BY p.project_id, pp.last_seen DESC, pp.path"
    )


def upsert_sql(mark: str) -> str:
    """Parameters: project pk, machine, path, now (first seen), now (last seen), pinned."""
    return (
        "INSERT INTO project_paths (project_pk, machine, path, first_seen, last_seen, pinned) "
        f"VALUES ({mark}, {mark}, {mark}, {mark}, {mark}, {mark}) "
        "ON CONFLICT (machine, path) DO UPDATE SET "
        "first_seen = CASE WHEN project_paths.project_pk = excluded.project_pk "
        "THEN project_paths.first_seen ELSE excluded.first_seen END, "
        "project_pk = excluded.project_pk, last_seen = excluded.last_seen, "
        "pinned = excluded.pinned"
    )


def path_from_row(row: tuple[object, ...]) -> ProjectPath:
    project_id, machine, path, first_seen, last_seen, pinned = row
    return ProjectPath(
        str(project_id),
        str(machine),
        str(path),
        float(first_seen),  # type: ignore[arg-type]
        float(last_seen),  # type: ignore[arg-type]
        bool(pinned),
    )

"""A project's paths: where each machine has it (a project has many paths).

One row per (machine, path): the project that path is, when it was first and last seen
there, and whether a person pinned it (``projects detach``: the path stays its own project
whatever its remote says). Recording is cheap by design: a resolve reads the row and writes
only when it is missing, names another project, or was last seen over ``REFRESH_S`` ago,
so an agent's hook turns add no write.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

REFRESH_S = 86_400.0  # last_seen is refreshed at most daily


@dataclass(frozen=True, slots=True)
class ProjectPath:
    project_id: str
    machine: str
    path: str
    first_seen: float
    last_seen: float
    pinned: bool = False


class ProjectPathStore(Protocol):
    """What a storage engine keeps of projects' paths (part of ``MemoryStore``); each
    write method is one transaction."""

    def path_owner(self, machine: str, path: str) -> ProjectPath | None:
        """The row of ``path`` on ``machine``, if it was ever recorded."""
        ...

    def record_path(
        self, project_id: str, machine: str, path: str, now: float, *, pinned: bool = False
    ) -> None:
        """Record that ``path`` on ``machine`` is ``project_id`` (which must exist) as of
        ``now``: a new row, or the row moved to this project (first seen anew) or seen again."""
        ...

    def project_paths(self, project_id: str) -> list[ProjectPath]:
        """The project's paths on every machine, by machine then path."""
        ...

    def machine_paths(self, machine: str) -> list[ProjectPath]:
        """Every path recorded on ``machine``, by project, the last seen first."""
        ...

    def move_observations(self, source: str, target: str) -> int:
        """Move every observation of scope ``source`` to ``target`` (both must exist);
        returns how many moved."""
        ...


def needs_recording(row: ProjectPath | None, project_id: str, now: float) -> bool:
    """Whether a resolve must write its path's row (else it only read it)."""
    return row is None or row.project_id != project_id or now - row.last_seen > REFRESH_S

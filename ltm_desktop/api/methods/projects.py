"""The scopes: ``project.resolve``, ``project.list``, ``stats``, and where each machine has
a project, merging and detaching (``project.paths``, ``project.merge``, ``project.detach``)."""

from __future__ import annotations

from typing import TypedDict

from ltm_desktop.api import serialize
from ltm_desktop.api.call import Call
from ltm_desktop.api.params import Id
from ltm_desktop.api.registry import method
from ltm_desktop.api.scopes import Scope
from ltm_desktop.api.shapes import ProjectShape, StatsShape


@method("project.resolve")
def project_resolve(call: Call, cwd: object) -> ProjectShape:
    service = call.service
    found = serialize.project(service.resolve_cwd(cwd))
    found["scopes"] = service.ambient.with_ambient(found["project_id"])
    return found


class ProjectsShape(TypedDict):
    projects: list[ProjectShape]


@method("project.list")
def project_list(call: Call) -> ProjectsShape:
    service = call.service
    projects = []
    for project, _ in service.projects():
        stats = serialize.stats(service.stats(project.project_id))
        projects.append(serialize.project(project, stats))
    return {"projects": projects}


@method("stats")
def stats(call: Call, scope: Scope) -> StatsShape:
    return serialize.stats(call.service.stats(scope.project_id))


class ProjectPathShape(TypedDict):
    machine: str
    path: str
    first_seen: str
    last_seen: str
    pinned: bool


class ProjectPathsShape(TypedDict):
    project_id: str
    identity: str  # the [projects] identity this server runs
    paths: list[ProjectPathShape]


@method("project.paths")
def project_paths(call: Call, project_id: Id) -> ProjectPathsShape:
    """Where each machine has the project (``core.projects.paths``)."""
    scopes = call.service.scopes
    paths: list[ProjectPathShape] = [
        {
            "machine": p.machine,
            "path": p.path,
            "first_seen": serialize.iso(p.first_seen),
            "last_seen": serialize.iso(p.last_seen),
            "pinned": p.pinned,
        }
        for p in scopes.paths(project_id)
    ]
    return {"project_id": project_id, "identity": scopes.mode, "paths": paths}


class MergedShape(TypedDict):
    source: str
    target: str
    memories: int
    outcomes: dict[str, int]
    observations: int
    paths: int


@method("project.merge", writes=True)
def project_merge(call: Call, source: Id, target: Id) -> MergedShape:
    """Merge scope ``source`` into ``target`` (``core.projects.merging``)."""
    merged = call.service.scopes.merge(source, target, call.client)
    return {
        "source": merged.source,
        "target": merged.target,
        "memories": merged.memories,
        "outcomes": merged.outcomes,
        "observations": merged.observations,
        "paths": merged.paths,
    }


@method("project.detach", writes=True)
def project_detach(call: Call, cwd: object) -> ProjectShape:
    """Pin a directory to its own path project on this machine."""
    return serialize.project(call.service.scopes.detach(cwd))

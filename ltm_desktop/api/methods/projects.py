"""The scopes: ``project.resolve``, ``project.list``, ``stats``."""

from __future__ import annotations

from typing import TypedDict

from ltm_desktop.api import serialize
from ltm_desktop.api.call import Call
from ltm_desktop.api.registry import method
from ltm_desktop.api.scopes import Scope
from ltm_desktop.api.shapes import ProjectShape, StatsShape


@method("project.resolve")
def project_resolve(call: Call, cwd: object) -> ProjectShape:
    return serialize.project(call.service.resolve_cwd(cwd))


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

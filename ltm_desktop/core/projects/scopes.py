"""Directories to project scopes, for the service (``MemoryService.projects_``): the identity
the settings choose (``identity``), the paths each machine has (``paths``), and adopting a
remote (``merging``). Every caller that turns a working directory into a project id goes
through ``ProjectScopes.resolve`` (``MemoryService.resolve_scope``).
"""

from __future__ import annotations

import logging
import posixpath
from collections.abc import Callable
from dataclasses import replace

from ltm_desktop.core import rules
from ltm_desktop.core.backend import MemoryStore
from ltm_desktop.core.errors import DatabaseUnreachable, LtmError, NotFound
from ltm_desktop.core.kernel import WriteKernel
from ltm_desktop.core.privacy.screening import Screen
from ltm_desktop.core.projects.identity import (
    REMOTE_PREFIX,
    Identity,
    IdentityMode,
    identify,
)
from ltm_desktop.core.projects.merging import Merged, merge_projects
from ltm_desktop.core.projects.paths import ProjectPath, needs_recording
from ltm_desktop.core.records import Project

log = logging.getLogger(__name__)
ADOPTING_ACTOR = "system"


def identity_mode(setting: str, on_server: bool) -> IdentityMode:
    """``[projects] identity`` as it applies: unset is "remote" on a database server
    (PostgreSQL, shared by machines), "path" on SQLite (one machine's)."""
    if setting in ("path", "remote"):
        return "remote" if setting == "remote" else "path"
    return "remote" if on_server else "path"


def _name(identity: Identity) -> str:
    if identity.remote is not None:
        return posixpath.basename(identity.remote)
    return rules.display_name_for_path(identity.path)


class ProjectScopes:
    """Resolving, merging and detaching projects for one service."""

    def __init__(
        self,
        store: MemoryStore,
        kernel: WriteKernel,
        screen: Screen,
        *,
        mode: IdentityMode,
        remote: str,
        machine: str,
        clock: Callable[[], float],
        known_unreachable: Callable[[], bool] = lambda: False,
    ) -> None:
        """``known_unreachable``: the database is known to be down right now (the outbox
        queues): a directory is then resolved from its files alone, without waiting for a
        connection that will fail."""
        self.store = store
        self._kernel = kernel
        self._screen = screen
        self.mode = mode
        self.remote = remote
        self.machine = machine
        self._clock = clock
        self._known_unreachable = known_unreachable

    # -- resolving ----------------------------------------------------------

    def identify(self, cwd: object) -> tuple[Identity, ProjectPath | None]:
        """The directory's identity under the setting, a pinned path (``detach``) winning;
        and its path's row on this machine when it was read (remote identity only: a
        path's project there depends on the repository, so it is checked every time)."""
        return self._with_row(identify(cwd, self.mode, self.remote))

    def _with_row(self, identity: Identity) -> tuple[Identity, ProjectPath | None]:
        """``identity`` with this machine's row for its path (``identify``): read from the
        store, so this is where an unreachable database is met."""
        if self.mode == "path":
            return identity, None
        row = self.store.path_owner(self.machine, identity.path)
        if row is not None and row.pinned and row.project_id != identity.project_id:
            return replace(identity, project_id=row.project_id, remote=None), row
        return identity, row

    def project(self, cwd: object) -> Project:
        """The project of a directory (known or not; nothing is written), with this
        machine's path for it."""
        identity, _ = self.identify(cwd)
        try:
            known = self.store.get_project(identity.project_id)
        except LookupError:
            return Project(identity.project_id, identity.path, _name(identity), self._clock())
        if known.path is None:  # created by a write whose caller has not registered it yet
            return replace(known, path=identity.path, name=_name(identity))
        if known.path != identity.path:  # another machine's path: this one's is shown
            return replace(known, path=identity.path)
        return known

    def resolve(self, cwd: object, *, register: bool) -> str:
        """The project id of ``cwd`` (``_resolve``); while the database cannot be reached,
        the directory's own identity, read from its files alone (a path detached by hand is
        not known then): an agent's write is queued under it (``outbox``), and the replay
        resolves it again, online."""
        own = identify(cwd, self.mode, self.remote)  # the files are read once
        if self._known_unreachable():
            return own.project_id
        try:
            return self._resolve(own, register=register)
        except DatabaseUnreachable:
            return own.project_id

    def _resolve(self, own: Identity, *, register: bool) -> str:
        """The project id of the directory ``own`` identifies. ``register`` (after a write)
        records the project and this machine's path for it. Under the remote identity, a
        path whose row names another project (or has none) and that was a path project is
        adopted: that project is merged into the repository's and the path recorded, once
        (``adopt``). A path already recorded costs one read; reads of an unknown project
        write nothing."""
        identity, row = self._with_row(own)
        if self.mode == "remote" and row is not None and row.project_id == identity.project_id:
            self._record(identity, row)  # last_seen, at most daily
            return identity.project_id
        adopted = False
        if self.mode == "remote" and identity.project_id.startswith(REMOTE_PREFIX):
            adopted = self.adopt(identity, row)
        if register or adopted:
            self._ensure(identity)
            if row is None and self.mode == "path":
                row = self.store.path_owner(self.machine, identity.path)
            self._record(identity, row)
        return identity.project_id

    def _ensure(self, identity: Identity) -> None:
        """The project's row, its path set only when it has none (on a shared database a
        repository's path differs by machine: ``project_paths`` holds each one)."""
        try:
            known = self.store.get_project(identity.project_id)
        except NotFound:
            known = None
        if known is None or known.path is None:
            with self._kernel.locked():
                self.store.ensure_project(identity.project_id, identity.path, _name(identity))
        elif known.path != identity.path and not identity.project_id.startswith(REMOTE_PREFIX):
            with self._kernel.locked():  # a path project's path: as the first design kept it
                self.store.ensure_project(identity.project_id, identity.path, _name(identity))

    def _record(self, identity: Identity, row: ProjectPath | None) -> None:
        now = self._clock()
        if not needs_recording(row, identity.project_id, now):
            return
        pinned = row is not None and row.pinned and row.project_id == identity.project_id
        try:
            with self._kernel.locked():
                self.store.record_path(
                    identity.project_id, self.machine, identity.path, now, pinned=pinned
                )
        except LtmError:  # the path shows up at the next resolve; the work went on
            log.warning("could not record the path of %s", identity.path, exc_info=True)

    def adopt(self, identity: Identity, row: ProjectPath | None) -> bool:
        """A directory now a repository's project: the path projects it was (its own
        path's, its repository top's, or the one its path was last recorded for) are merged
        into it. Whether there was one (the path is then recorded, so this happens once).
        A failure is logged: the directory still resolves, and the next resolve retries."""
        sources = list(identity.path_ids)
        if row is not None and not row.project_id.startswith(REMOTE_PREFIX):
            sources.append(row.project_id)
        found = []
        for source in dict.fromkeys(sources):
            try:
                self.store.get_project(source)
            except NotFound:
                continue
            found.append(source)
        if not found:
            return False
        self._ensure(identity)
        for source in found:
            try:
                merged = self.merge(source, identity.project_id, ADOPTING_ACTOR)
            except LtmError as exc:
                log.warning("could not merge %s into %s: %s", source, identity.project_id, exc)
                return False
            log.info(
                "adopted %s into %s: %d memories, %d observations",
                source,
                identity.project_id,
                merged.memories,
                merged.observations,
            )
        return True

    # -- by hand ------------------------------------------------------------

    def merge(self, source: object, target: object, actor: str) -> Merged:
        """Merge scope ``source`` into ``target`` (``merging.merge_projects``)."""
        return merge_projects(
            self.store, self._kernel, self._screen, source, target, actor, self._clock
        )

    def detach(self, cwd: object) -> Project:
        """Make a directory its own (path) project again on this machine, whatever its
        remote says: its path is pinned to its path id. Memories stay where they are
        (move some with ``transfer``; ``merge`` joins them back)."""
        path = identify(cwd, "remote", self.remote).path  # a repository's top, as resolved
        identity = Identity(rules.project_id_for_cwd(path), path, None, path)
        with self._kernel.locked():
            self.store.ensure_project(identity.project_id, path, _name(identity))
            self.store.record_path(
                identity.project_id, self.machine, path, self._clock(), pinned=True
            )
        return self.store.get_project(identity.project_id)

    def as_seen_here(self, projects: list[Project]) -> list[Project]:
        """``projects`` with their paths on this machine (the last seen, where one has
        several): a repository's project never opened here has none, since another
        machine's path would not open; a path project keeps its own."""
        here: dict[str, str] = {}
        for row in self.store.machine_paths(self.machine):
            here.setdefault(row.project_id, row.path)
        seen = []
        for project in projects:
            own = None if project.project_id.startswith(REMOTE_PREFIX) else project.path
            path = here.get(project.project_id, own)
            seen.append(project if path == project.path else replace(project, path=path))
        return seen

    def paths(self, project_id: object) -> list[ProjectPath]:
        """Where each machine has the project."""
        return self.store.project_paths(rules.check_project_id(project_id))

"""Which project a working directory belongs to: THE place a cwd becomes a project id.

Two identities (``[projects] identity``, docs/projects.md):

- ``path``: ``proj_`` + 16 hex digits of SHA-256 of the normalized directory
  (``rules.project_id_for_cwd``): each directory its own project, as in the first design;
- ``remote``: ``repo_`` + 16 hex digits of SHA-256 of the normalized URL of the
  repository's remote (``remote_url``), so every clone, on any machine and at any path,
  is one project. A directory that is in no repository, or whose repository has no such
  remote (or a local one), keeps its path id.

A remote project's path is the repository's top directory (the same project from any
folder in it); a path project's is the directory itself, as before.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Literal

from ltm_desktop.core import rules
from ltm_desktop.core.projects.git_config import remote_url
from ltm_desktop.core.projects.remote_url import normalize_remote_url

IdentityMode = Literal["path", "remote"]
MODES: tuple[IdentityMode, ...] = ("path", "remote")
REMOTE_PREFIX = "repo_"


@dataclass(frozen=True, slots=True)
class Identity:
    """A directory's project: its id, the path recorded for it on this machine, and the
    normalized remote URL when the id comes from one."""

    project_id: str
    path: str
    remote: str | None = None
    cwd: str = ""  # the directory asked about, normalized (the path, or a folder in it)

    @property
    def path_ids(self) -> tuple[str, ...]:
        """The ids the directory (and its repository's top) have by path: the projects it
        may have been before it had a remote."""
        ids = (rules.project_id_for_cwd(self.cwd or self.path), rules.project_id_for_cwd(self.path))
        return tuple(dict.fromkeys(ids))


def remote_project_id(normalized_url: str) -> str:
    """``repo_`` + the first 16 hex digits of SHA-256 of the normalized remote URL."""
    return REMOTE_PREFIX + hashlib.sha256(normalized_url.encode("utf-8")).hexdigest()[:16]


def identify(cwd: object, mode: IdentityMode, remote: str = "origin") -> Identity:
    """The project of ``cwd`` under ``mode`` (reads a few files; never runs git).

    Raises:
        InvalidInput: ``cwd`` is not an absolute path.
    """
    path = rules.normalize_cwd(cwd)
    if mode == "remote":
        found = remote_url(path, remote)
        if found is not None:
            repository, url = found
            normalized = normalize_remote_url(url)
            if normalized is not None:
                root = rules.normalize_cwd(repository.root)
                return Identity(remote_project_id(normalized), root, normalized, path)
    return Identity(rules.project_id_for_cwd(path), path, None, path)

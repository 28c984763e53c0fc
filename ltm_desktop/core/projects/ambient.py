"""The scopes that ride along with every search and every MEMORY.md (docs/teams.md).

With ``[people] global = "shared"`` (SQLite's default) that is the one ``global`` scope,
exactly as before. With "personal" (PostgreSQL's default: a database shared by a team)
each person has a global scope of their own, ``person_`` + 16 hex digits of a hash of
their name, and the stored ``global`` scope becomes the team's (shown as "Team", named
``team`` to agents): a search or a MEMORY.md then holds the project's memories, the
person's own global ones and the team's, and never another person's.

``AmbientScopes`` is the one owner of that fact: the service builds it once, from the
settings and its ``WhoAmI``, and hands it to every part that reads "project plus
global". The person is resolved on first use only in personal mode, so a shared-mode
hook never reads ``machine.json`` for it.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from typing import Literal

from ltm_desktop.core.records import GLOBAL_PROJECT_ID

GlobalMode = Literal["shared", "personal"]
PERSON_PREFIX = "person_"  # a person's own global scope: PERSON_PREFIX + 16 hex digits
TEAM_ALIAS = "team"  # what agents and the API call the stored ``global`` scope
TEAM_NAME = "Team"


def global_mode(setting: str, on_server: bool) -> GlobalMode:
    """``[people] global`` as it applies: unset is "personal" on a database server
    (PostgreSQL, shared by people), "shared" on SQLite (one person's), as
    ``projects.scopes.identity_mode`` resolves ``[projects] identity``."""
    if setting in ("shared", "personal"):
        return "personal" if setting == "personal" else "shared"
    return "personal" if on_server else "shared"


def personal_scope_id(person: str) -> str:
    """The id of ``person``'s own global scope: the same for the same name on every
    machine (case-insensitive, surrounding spaces ignored)."""
    digest = hashlib.sha256(person.strip().casefold().encode("utf-8")).hexdigest()
    return PERSON_PREFIX + digest[:16]


def personal_scope_name(person: str) -> str:
    """The name a person's global scope's row is made with."""
    return f"Global ({person})"


class AmbientScopes:
    """The personal and team scopes of this process's person, for one service."""

    def __init__(self, mode: GlobalMode, person: Callable[[], str]) -> None:
        """``person``: the person's name (``[people] name``, else ``user@host``); asked
        once, on first use, and only in personal mode."""
        self.mode: GlobalMode = mode
        self._person = person
        self._resolved: str | None = None
        self._lock = threading.Lock()

    @classmethod
    def shared(cls) -> AmbientScopes:
        """One ``global`` scope for everyone (the first design)."""
        return cls("shared", lambda: "")

    @property
    def personal_mode(self) -> bool:
        return self.mode == "personal"

    @property
    def person(self) -> str:
        """The person whose global scope this is ("" in shared mode)."""
        if not self.personal_mode:
            return ""
        with self._lock:
            if self._resolved is None:
                self._resolved = self._person()
            return self._resolved

    @property
    def personal(self) -> str:
        """The scope "global" means to this person's agents: their own, or ``global``."""
        return personal_scope_id(self.person) if self.personal_mode else GLOBAL_PROJECT_ID

    @property
    def team(self) -> str:
        """The scope everyone shares (``team`` to agents; ``global`` itself when shared)."""
        return GLOBAL_PROJECT_ID

    @property
    def ids(self) -> tuple[str, ...]:
        """The ambient scopes: the personal one first, then the team's (one when shared)."""
        return (self.personal, self.team) if self.personal_mode else (GLOBAL_PROJECT_ID,)

    def with_ambient(self, project_id: str, include: bool = True) -> list[str]:
        """``project_id`` and, when ``include``, the ambient scopes it is not: what a
        search, a precis or a session's changes read."""
        if not include:
            return [project_id]
        return [project_id, *(s for s in self.ids if s != project_id)]

    def is_ambient(self, project_id: str) -> bool:
        """A write to it reaches every project's MEMORY.md."""
        return project_id in self.ids

    def is_foreign(self, project_id: str) -> bool:
        """Another person's global scope: never searched nor rendered here."""
        return project_id.startswith(PERSON_PREFIX) and project_id != self.personal

    def alias(self, project_id: str) -> str:
        """A scope as an agent, the API or the CLI names it: ``global`` is this person's
        global, ``team`` the shared one; any other id as it is."""
        if project_id == GLOBAL_PROJECT_ID:
            return self.personal
        if project_id == TEAM_ALIAS:
            return self.team
        return project_id

    def label(self, project_id: str, name: str) -> str:
        """The scope's name for this person's screens: "Team" and "Global (you)" in
        personal mode; ``name`` (the row's) otherwise."""
        if not self.personal_mode:
            return name
        if project_id == GLOBAL_PROJECT_ID:
            return TEAM_NAME
        if project_id == self.personal:
            return "Global (you)"
        return name

"""The scope a request names: ``cwd`` (the agent's working directory) or ``project_id``."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Self

from ltm_desktop.api.call import Call, NotInline
from ltm_desktop.api.params import Composite, invalid
from ltm_desktop.core import rules
from ltm_desktop.core.errors import LtmError

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Scope(Composite):
    """A handler's parameter for the params ``cwd`` and ``project_id``: exactly one is
    given, and this is the scope it names (``Scope | None = None``: neither may be)."""

    wire_names = ("cwd", "project_id")

    project_id: str
    cwd: str | None  # as sent (a memory's absolute files are made relative to it)

    @classmethod
    def from_params(cls, call: Call, params: Mapping[str, Any]) -> Self:
        cwd, project_id = params.get("cwd"), params.get("project_id")
        if call.inline and cwd is not None:
            # resolving a cwd touches the file system (symlinks), which may hang on a slow
            # mount and must not stall the event loop
            raise NotInline
        if cwd is not None and project_id is not None:
            raise invalid("cwd", "give cwd or project_id, not both")
        if cwd is None and project_id is None:
            raise invalid("cwd", "give cwd (the agent's working directory) or project_id")
        if cwd is not None and not isinstance(cwd, str):
            raise invalid("cwd", f"must be a string, not {rules.describe(cwd)}")
        if project_id is not None and not isinstance(project_id, str):
            raise invalid("project_id", f"must be a string, not {rules.describe(project_id)}")
        return cls(call.service.resolve_scope(cwd=cwd, project_id=project_id), cwd)

    def remember_path(self, call: Call) -> None:
        """Remember the cwd's path and name, once a write to it has succeeded.

        The write is already committed, so a failure here is logged, not reported: the
        project then shows its id until its next write records the path.
        """
        if self.cwd is not None:
            try:
                call.service.resolve_scope(cwd=self.cwd, register=True)
            except LtmError:
                log.warning("could not record the path of %s", self.cwd, exc_info=True)

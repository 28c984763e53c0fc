"""``memory.changes``: what changed in a scope since an audit sequence number.

A hook that injected MEMORY.md at session start asks it every turn with the ``head`` it
was last given, so a memory saved mid-session reaches the next turn
(``core.history.session_changes``).
"""

from __future__ import annotations

from typing import Annotated, Any, TypedDict

from ltm_desktop.api import serialize
from ltm_desktop.api.call import Call
from ltm_desktop.api.params import Between
from ltm_desktop.api.registry import method
from ltm_desktop.api.scopes import Scope
from ltm_desktop.core.history.session_changes import MAX_CHANGES, changes_since

Head = Annotated[
    int, Between(0, None, "must be 0 or more (a head from an earlier answer); got {value}")
]
Limit = Annotated[int, Between(1, MAX_CHANGES)]


class ChangesShape(TypedDict):
    head: int
    changes: list[dict[str, Any]]
    more: int
    truncated: bool


@method("memory.changes")
def memory_changes(
    call: Call,
    scope: Scope,
    since: Head | None = None,
    limit: Limit = MAX_CHANGES,
    include_global: bool = True,
) -> ChangesShape:
    service = call.service
    found = changes_since(
        service.history,
        service.get_many,
        scope.project_id,
        since,
        limit=limit,
        include_global=include_global,
        include_flagged=service.settings.privacy_flagged_in_precis,
        ambient=service.ambient,
    )
    return {
        "head": found.head,
        "changes": [
            {
                "kind": c.kind.value,
                "seq": c.seq,
                "actor": c.actor,
                "person": c.person,
                "machine": c.machine,
                "id": c.memory_id,
                "withheld": c.withheld,
                "memory": None if c.memory is None or c.withheld else serialize.memory(c.memory),
            }
            for c in found.changes
        ],
        "more": found.more,
        "truncated": found.truncated,
    }

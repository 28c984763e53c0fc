"""The ``memory.changes`` method: what changed in a scope since an audit sequence number.

A hook that injected MEMORY.md at session start asks it every turn with the ``head`` it
was last given, so a memory saved mid-session reaches the next turn (``core.session_changes``).
Registered into ``methods.METHODS`` when ``methods`` is imported (it imports this module
last).
"""

from __future__ import annotations

from typing import Any

from ltm_desktop.api import serialize
from ltm_desktop.api.dispatch import Dispatcher, Session, method
from ltm_desktop.api.methods import scope
from ltm_desktop.api.params import Params, invalid
from ltm_desktop.core.history.session_changes import MAX_CHANGES, changes_since


@method("memory.changes")
def memory_changes(d: Dispatcher, p: Params, s: Session) -> Any:
    project_id = scope(d, p)
    since = p.integer("since", nullable=True)
    if since is not None and since < 0:
        raise invalid("since", f"must be 0 or more (a head from an earlier answer); got {since}")
    count = p.integer("limit")
    if count is not None and not 1 <= count <= MAX_CHANGES:
        raise invalid("limit", f"must be between 1 and {MAX_CHANGES}; got {count}")
    include_global = p.boolean("include_global", True)
    p.done()
    found = changes_since(
        d.service.history,
        d.service.get_many,
        project_id,
        since,
        limit=count or MAX_CHANGES,
        include_global=include_global,
        include_flagged=d.service.settings.privacy_flagged_in_precis,
    )
    return {
        "head": found.head,
        "changes": [
            {
                "kind": c.kind.value,
                "seq": c.seq,
                "actor": c.actor,
                "id": c.memory_id,
                "withheld": c.withheld,
                "memory": None if c.memory is None or c.withheld else serialize.memory(c.memory),
            }
            for c in found.changes
        ],
        "more": found.more,
        "truncated": found.truncated,
    }

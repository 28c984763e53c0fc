"""``observe``: what happened in an agent's session (a turn's end, a compaction)."""

from __future__ import annotations

from typing import TypedDict

from ltm_desktop.api import serialize
from ltm_desktop.api.call import Call
from ltm_desktop.api.registry import method
from ltm_desktop.api.scopes import Scope
from ltm_desktop.api.shapes import ObservationShape
from ltm_desktop.core.errors import ObservationOff


class ObservedShape(TypedDict, total=False):
    observation: ObservationShape | None
    skipped: str


@method("observe", writes=True)
def observe(
    call: Call,
    scope: Scope,
    session_id: object,
    kind: object,
    user_text: object = None,
    assistant_text: object = None,
    messages_text: object = None,
) -> ObservedShape:
    try:
        observation = call.service.observations.record(
            scope.project_id,
            kind,
            session_id,
            call.client,
            user_text=user_text,
            assistant_text=assistant_text,
            messages_text=messages_text,
        )
    except ObservationOff as exc:
        return {"observation": None, "skipped": str(exc)}
    scope.remember_path(call)
    return {"observation": serialize.observation(observation)}

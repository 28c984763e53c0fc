"""Deleting: ``forget`` (to the trash, by id), and the only physical deletion,
``memory.erase`` and ``memory.empty_trash`` (``core.privacy.erasing_service``)."""

from __future__ import annotations

from typing import Any, TypedDict

from ltm_desktop.api import serialize
from ltm_desktop.api.call import Call
from ltm_desktop.api.params import Id
from ltm_desktop.api.registry import method
from ltm_desktop.api.scopes import Scope
from ltm_desktop.core.privacy.erasing_service import Erased
from ltm_desktop.core.privacy.forgetting import forget as forget_ids


@method("forget", writes=True)
def forget(
    call: Call, scope: Scope, memory_ids: object = None, observation_ids: object = None
) -> dict[str, Any]:
    result = forget_ids(call.service, scope.project_id, memory_ids, observation_ids, call.client)
    return serialize.forget_result(result)


class ErasedShape(TypedDict):
    erased: list[str]
    scrubbed: bool
    note: str


def _erased(erased: Erased) -> ErasedShape:
    return {"erased": list(erased.ids), "scrubbed": erased.scrubbed, "note": erased.note}


@method("memory.erase")
def memory_erase(call: Call, id: Id) -> ErasedShape:
    return _erased(call.service.eraser.erase(id, call.client))


@method("memory.empty_trash")
def memory_empty_trash(call: Call, scope: Scope) -> ErasedShape:
    return _erased(call.service.eraser.empty_trash(scope.project_id, call.client))

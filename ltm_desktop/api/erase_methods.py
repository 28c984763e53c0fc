"""``memory.erase`` and ``memory.empty_trash``: the only physical deletion (core.erasing).

Registered into ``methods.METHODS`` when ``methods`` is imported (it imports this module
last).
"""

from __future__ import annotations

from typing import Any

from ltm_desktop.api.dispatch import Dispatcher, Session, method
from ltm_desktop.api.methods import memory_id, scope
from ltm_desktop.api.params import Params
from ltm_desktop.core.privacy.erasing_service import Erased


def _erased(erased: Erased) -> dict[str, Any]:
    return {"erased": list(erased.ids), "scrubbed": erased.scrubbed, "note": erased.note}


@method("memory.erase")
def memory_erase(d: Dispatcher, p: Params, s: Session) -> Any:
    target = memory_id(p)
    p.done()
    return _erased(d.service.eraser.erase(target, s.client))


@method("memory.empty_trash")
def memory_empty_trash(d: Dispatcher, p: Params, s: Session) -> Any:
    project_id = scope(d, p)
    p.done()
    return _erased(d.service.eraser.empty_trash(project_id, s.client))

"""The ``forget`` method: soft-delete memories and observations of one scope by id.

Registered into ``methods.METHODS`` when ``methods`` is imported (it imports this module
last).
"""

from __future__ import annotations

from typing import Any

from ltm_desktop.api import serialize
from ltm_desktop.api.dispatch import Dispatcher, Session, method
from ltm_desktop.api.methods import scope
from ltm_desktop.api.params import Params
from ltm_desktop.core.privacy.forgetting import forget as forget_ids


@method("forget")
def forget(d: Dispatcher, p: Params, s: Session) -> Any:
    project_id = scope(d, p)
    memory_ids, observation_ids = p.raw("memory_ids"), p.raw("observation_ids")
    p.done()
    result = forget_ids(d.service, project_id, memory_ids, observation_ids, s.client)
    return serialize.forget_result(result)

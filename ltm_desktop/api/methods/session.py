"""What a connection says about itself: ``health``, ``hello``, ``auth``, ``events.subscribe``.

``health``, ``hello`` and ``auth`` answer at once (on the event loop) and whatever the
switches say; ``events.subscribe`` starts the connection's stream of ``memory.changed``.
"""

from __future__ import annotations

from typing import Annotated, TypedDict

from ltm_desktop import __version__
from ltm_desktop.api import PROTOCOL_VERSION, serialize
from ltm_desktop.api.call import Call
from ltm_desktop.api.params import Checked, invalid
from ltm_desktop.api.protocol import UNAUTHORIZED, RpcError
from ltm_desktop.api.registry import method
from ltm_desktop.api.shapes import HealthShape
from ltm_desktop.core import rules
from ltm_desktop.core.errors import InvalidInput


class HelloShape(TypedDict):
    server: str
    version: str
    protocol: int


class AuthShape(TypedDict):
    ok: bool
    required: bool


@method("health", inline=True, gated=False)
def health(call: Call) -> HealthShape:
    service = call.service
    state = service.database.health()
    switches = service.switches
    health: HealthShape = {
        "ok": state.ok and switches.local,
        "enabled": switches.enabled,
        "backend": switches.backend,
        "detail": switches.backend_problem() or "; ".join(state.problems),
        "version": __version__,
        "protocol": PROTOCOL_VERSION,
        "schema_version": service.database.schema_version,
        "db_path": service.database.location,
        "synchronous": state.synchronous,
        "problems": list(state.problems),
        "memory_md_problems": [
            serialize.memory_md_problem(x) for x in service.memory_md.problems()
        ],
        "semantic_search": serialize.index_status(service.search.index_status()),
    }
    if service.offline.available:
        outbox = serialize.outbox(service.offline.status(), service.now())
        health["outbox"] = outbox
        if outbox["text"]:
            health["detail"] = "; ".join(filter(None, (outbox["text"], health["detail"])))
    return health


@method("hello", inline=True, gated=False)
def hello(call: Call, client: str) -> HelloShape:
    try:
        call.session.client = rules.check_actor(client)
    except InvalidInput as exc:
        raise invalid("client", str(exc).replace("actor", "client name")) from None
    return {"server": "ltm-desktop", "version": __version__, "protocol": PROTOCOL_VERSION}


@method("auth", inline=True, gated=False)
def auth(call: Call, token: Annotated[str, Checked(rules.check_text)]) -> AuthShape:
    session = call.session
    if session.transport != "tcp":
        return {"ok": True, "required": False}  # Unix peers are checked by uid instead
    if not call.check_token(token):
        raise RpcError(UNAUTHORIZED, "unauthorized: wrong token")
    session.authenticated = True
    return {"ok": True, "required": True}


class SubscribedShape(TypedDict):
    subscribed: bool


@method("events.subscribe")
def events_subscribe(call: Call) -> SubscribedShape:
    session = call.session
    if not session.subscribed and session.start_events is not None:
        session.start_events()
        session.subscribed = True
    return {"subscribed": True}

"""The method registry and the dispatcher that maps core errors to JSON-RPC codes.

Handlers live in ``api.methods``; each registers itself with ``@method``.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ltm_desktop.api.conflicts import conflict_data
from ltm_desktop.api.params import Params, invalid
from ltm_desktop.api.protocol import (
    CONFLICT,
    DISABLED,
    INTERNAL_ERROR,
    METHOD_NOT_FOUND,
    NOT_FOUND,
    NOT_IMPLEMENTED,
    UNAUTHORIZED,
    Request,
    RpcError,
)
from ltm_desktop.api.view_warnings import with_memory_md_warning
from ltm_desktop.core.errors import (
    BackendNotImplemented,
    Conflict,
    InvalidInput,
    LtmError,
    MemoryDisabled,
    NotFound,
    StorageError,
)
from ltm_desktop.core.service import MemoryService

log = logging.getLogger(__name__)
DEFAULT_ACTOR = "agent"


@dataclass
class Session:
    """Per-connection state."""

    transport: str  # "unix" or "tcp"
    client: str = DEFAULT_ACTOR
    authenticated: bool = False
    subscribed: bool = False
    start_events: Callable[[], None] | None = field(default=None, repr=False)


Handler = Callable[["Dispatcher", Params, Session], Any]
METHODS: dict[str, Handler] = {}
# Handlers that answer at once, without I/O that grows with the data, so the server runs
# them on its event loop; one raises NotInline when the request needs the thread pool.
INLINE: dict[str, Handler] = {}


class NotInline(Exception):  # noqa: N818 - a signal, not an error
    """The request cannot be answered at once; run it on the thread pool."""


WRITE_METHODS = frozenset(
    {
        "memory.add",
        "memory.update",
        "memory.remove",
        "memory.restore",
        "memory.purge_expired",
        "observe",
        "forget",
        "inbox.approve",
        "inbox.reject",
        "inbox.reopen",
    }
)


# Methods that answer whatever the switches say (``[memory] enabled``, ``backend``): the
# rest answer DISABLED or NOT_IMPLEMENTED (``MemoryService.require_memory``).
UNGATED = frozenset({"health", "hello", "auth"})
DISABLED_DATA = {"reason": "ltm_disabled"}


def method(name: str, *, inline: bool = False) -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        METHODS[name] = handler
        if inline:
            INLINE[name] = handler
        return handler

    return register


def inline_method(name: str) -> Callable[[Handler], Handler]:
    """The at-once variant of method ``name`` (it may raise NotInline)."""

    def register(handler: Handler) -> Handler:
        INLINE[name] = handler
        return handler

    return register


class Dispatcher:
    """Runs one request against the service on behalf of a session."""

    def __init__(
        self,
        service: MemoryService,
        token: str | None = None,
        on_write: Callable[[str, str, Any], None] | None = None,
    ) -> None:
        self.service = service
        self._token = token
        self._on_write = on_write

    def dispatch(self, request: Request, session: Session, *, inline: bool = False) -> Any:
        """The result of ``request``; raises RpcError for every kind of failure.

        ``inline``: only answer what can be answered at once (see INLINE); raises
        NotInline for the rest, which then goes to the thread pool.
        """
        if session.transport == "tcp" and not session.authenticated and request.method != "auth":
            raise RpcError(UNAUTHORIZED, "unauthorized: call auth with the server's token first")
        handler = (INLINE if inline else METHODS).get(request.method)
        if handler is None:
            if inline and request.method in METHODS:
                raise NotInline
            raise RpcError(METHOD_NOT_FOUND, f"method not found: {request.method[:100]!r}")
        params = Params(request.params)
        try:
            if request.method not in UNGATED:
                self.service.switches.require_memory()
            result = handler(self, params, session)
        except (RpcError, NotInline):
            raise
        except MemoryDisabled as exc:
            raise RpcError(DISABLED, f"disabled: {exc}", dict(DISABLED_DATA)) from None
        except BackendNotImplemented as exc:
            data = {"backend": self.service.switches.backend}
            raise RpcError(NOT_IMPLEMENTED, f"not implemented: {exc}", data) from None
        except InvalidInput as exc:
            raise invalid(exc.field or "params", str(exc)) from None
        except NotFound as exc:
            raise RpcError(NOT_FOUND, f"not found: {exc}") from None
        except Conflict as exc:
            raise RpcError(CONFLICT, f"conflict: {exc}", conflict_data(exc)) from None
        except StorageError as exc:
            log.warning("storage error in %s: %s", request.method, exc)
            raise RpcError(INTERNAL_ERROR, f"internal error: {exc}") from None
        except LtmError as exc:
            raise RpcError(INTERNAL_ERROR, f"internal error: {exc}") from None
        except Exception:
            log.exception("bug while handling %s", request.method)
            raise RpcError(INTERNAL_ERROR, "internal error; the server log has details") from None
        if request.method in WRITE_METHODS:
            result = with_memory_md_warning(self.service, result)
            if self._on_write is not None:
                self._on_write(session.client, request.method, result)
        return result

    def check_token(self, token: str) -> bool:
        return self._token is not None and hmac.compare_digest(token.encode(), self._token.encode())

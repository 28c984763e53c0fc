"""The dispatcher: runs a request's method, and maps core errors to JSON-RPC codes.

It is given the method table (``api.methods.all_methods()``); the methods themselves
neither know it nor import it.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ltm_desktop.api.call import Call, NotInline, Session
from ltm_desktop.api.conflicts import conflict_data
from ltm_desktop.api.params import invalid
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
from ltm_desktop.api.registry import Method
from ltm_desktop.api.view_warnings import with_memory_md_warning
from ltm_desktop.core import rules
from ltm_desktop.core.errors import (
    BackendNotImplemented,
    Conflict,
    DatabaseUnreachable,
    InvalidInput,
    LtmError,
    MemoryDisabled,
    NotFound,
    StorageError,
)
from ltm_desktop.core.offline import Offline
from ltm_desktop.core.service import MemoryService

if TYPE_CHECKING:
    from ltm_desktop.api.offline import Fallback

log = logging.getLogger(__name__)
DISABLED_DATA = {"reason": "ltm_disabled"}
__all__ = ["Dispatcher", "NotInline", "Session"]


class Dispatcher:
    """Runs one request against the service on behalf of a session."""

    def __init__(
        self,
        service: MemoryService,
        methods: Mapping[str, Method],
        token: str | None = None,
        on_write: Callable[[str, str, Any], None] | None = None,
        fallbacks: Mapping[str, Fallback] | None = None,
    ) -> None:
        """``fallbacks``: the offline answers (``api.offline``) of the methods that have one,
        used when the service's outbox queues writes or the database is unreachable."""
        self.service = service
        self._methods = methods
        self._token = token
        self._on_write = on_write
        self._fallbacks = fallbacks or {}

    def dispatch(self, request: Request, session: Session, *, inline: bool = False) -> Any:
        """The result of ``request``; raises RpcError for every kind of failure.

        ``inline``: only answer what can be answered at once (``Method.at_once``); raises
        NotInline for the rest, which then goes to the thread pool.
        """
        if session.transport == "tcp" and not session.authenticated and request.method != "auth":
            raise RpcError(UNAUTHORIZED, "unauthorized: call auth with the server's token first")
        method = self._methods.get(request.method)
        if method is None:
            raise RpcError(METHOD_NOT_FOUND, f"method not found: {request.method[:100]!r}")
        offline = self.service.offline
        fallback = self._fallbacks.get(request.method) if offline.available else None
        handler = method.at_once if inline else method.handler
        if fallback is not None and fallback.applies(offline):
            if inline:
                raise NotInline  # the outbox and the cache are files: the thread pool's
            handler = fallback.handler
        if handler is None:
            raise NotInline
        call = Call(self.service, session, inline, self.check_token)
        try:
            if method.gated:
                self.service.switches.require_memory()
            try:
                result = handler(call, request.params)
            except DatabaseUnreachable as exc:
                if fallback is None or handler is fallback.handler:
                    raise
                offline.unreachable(str(exc))  # queued from now on, until replayed
                result = fallback.handler(call, request.params)
            if fallback is not None:
                _remember_scope(offline, request.params, result)
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
        if method.writes:
            result = with_memory_md_warning(self.service, result)
            if self._on_write is not None:
                self._on_write(session.client, request.method, result)
        return result

    def check_token(self, token: str) -> bool:
        return self._token is not None and hmac.compare_digest(token.encode(), self._token.encode())


def _remember_scope(offline: Offline, params: Mapping[str, Any], result: Any) -> None:
    """Keep the scope a request used in this machine's read cache (``api.offline``)."""
    project_id = params.get("project_id")
    if not isinstance(project_id, str) and isinstance(result, dict):
        memory = result.get("memory")
        project_id = memory.get("project_id") if isinstance(memory, dict) else None
    if not isinstance(project_id, str) and isinstance(params.get("cwd"), str):
        try:
            project_id = rules.project_id_for_cwd(rules.normalize_cwd(params["cwd"]))
        except LtmError:
            return
    if isinstance(project_id, str):
        offline.seen(project_id)

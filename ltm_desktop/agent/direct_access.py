"""Memory access without a server: the API's own dispatcher, in this process.

Used when no server serves the data dir. Requests go through the same validation,
service calls and serialization as over the socket, so the results are the same.
"""

from __future__ import annotations

import logging
from typing import Any

from ltm_desktop.agent.access import AccessError, Unavailable
from ltm_desktop.api.methods import Dispatcher, Session
from ltm_desktop.api.protocol import DISABLED, INTERNAL_ERROR, Request, RpcError
from ltm_desktop.core import rules
from ltm_desktop.core.errors import MemoryDisabled
from ltm_desktop.core.service import MemoryService

log = logging.getLogger(__name__)


class DirectAccess:
    """A service of this process; ``close_service``: closing the access closes it."""

    def __init__(self, service: MemoryService, client: str, *, close_service: bool = True) -> None:
        self.service = service
        self._close_service = close_service
        self._dispatcher = Dispatcher(service)
        self._session = Session("unix", client=rules.check_actor(client))

    def describe(self) -> str:
        return f"database {self.service.database.location}"

    def set_client(self, name: str) -> None:
        self._session.client = rules.check_actor(name)

    def call(self, method: str, params: dict[str, Any]) -> Any:
        try:
            return self._dispatcher.dispatch(Request(method, params, 1, False), self._session)
        except RpcError as exc:
            if exc.code == DISABLED:
                raise MemoryDisabled(exc.message.removeprefix("disabled: ")) from None
            if exc.code == INTERNAL_ERROR:
                raise Unavailable(AccessError(exc.code, exc.message).args[0]) from None
            param = (exc.data or {}).get("param")
            raise AccessError(exc.code, exc.message, param) from None

    def close(self) -> None:
        if self._close_service:
            self.service.close()

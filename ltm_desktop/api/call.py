"""What a method's handler gets besides its params: the service and the caller's session."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ltm_desktop.core.service import MemoryService

DEFAULT_ACTOR = "agent"


@dataclass
class Session:
    """Per-connection state."""

    transport: str  # "unix", "tcp" or "http"
    client: str = DEFAULT_ACTOR
    authenticated: bool = False
    subscribed: bool = False
    start_events: Callable[[], None] | None = field(default=None, repr=False)


class NotInline(Exception):  # noqa: N818 - a signal, not an error
    """The request cannot be answered at once; run it on the thread pool."""


def _no_token(token: str) -> bool:
    return False


@dataclass(frozen=True, slots=True)
class Call:
    """One request being answered: a handler's first argument.

    ``inline``: answered on the server's event loop (``@method(inline=True)``), where
    anything that may wait (the file system, a query that grows with the data) raises
    NotInline instead, so that the thread pool answers it.
    """

    service: MemoryService
    session: Session
    inline: bool = False
    check_token: Callable[[str], bool] = _no_token

    @property
    def client(self) -> str:
        """Who the change is attributed to (``hello``'s ``client``)."""
        return self.session.client

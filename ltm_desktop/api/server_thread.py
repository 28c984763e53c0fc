"""The API server on a background thread with its own event loop (used by the app)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from pathlib import Path

from ltm_desktop.api.listeners import ServerAlreadyRunning
from ltm_desktop.api.server import ApiServer, ServerOptions
from ltm_desktop.core.errors import LtmError
from ltm_desktop.core.service import MemoryService

log = logging.getLogger(__name__)


class ServerThread:
    """Runs an ApiServer on its own event loop in a background thread (for the app).

    Implements the GUI's ApiStatus: ``endpoint``, ``error``, ``connected_clients()``,
    ``last_action()``, and ``restart()`` with ``other_server`` for taking over the API
    when another server that held the data dir stops.
    """

    def __init__(self, service: MemoryService, data_dir: Path, options: ServerOptions) -> None:
        self._parts = (service, data_dir, options)
        self.server = ApiServer(service, data_dir, options)
        self.error: str | None = None
        self.http_endpoint: str | None = None  # the HTTP API beside it, when served
        self.other_server = False  # the error: another live server holds the data dir
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread = threading.Thread(target=self._run, name="ltm-api-server", daemon=True)

    @property
    def endpoint(self) -> str | None:
        ep = self.server.endpoint
        return ep.describe() if ep is not None and self.error is None else None

    def connected_clients(self) -> int:
        return self.server.connected_clients()

    def last_action(self) -> str | None:
        return self.server.last_action()

    def start(self, timeout: float = 15.0) -> bool:
        """Start serving; False (with ``error`` set) if the server could not start."""
        self._thread.start()
        if not self._ready.wait(timeout):
            self.error = f"the agent API did not start within {timeout:.0f} s"
        return self.error is None and self.server.endpoint is not None

    def restart(self) -> bool:
        """Start again after a failure, without waiting (``endpoint`` or ``error`` tell
        how it went); False when the server runs or is starting already."""
        if self._thread.is_alive() and self.error is None:
            return False
        if self._thread.ident is not None:
            self._thread.join()  # a failed start ends its thread at once
        self.server = ApiServer(*self._parts)
        self.error, self.other_server = None, False
        self._ready, self._stop, self._loop = threading.Event(), None, None
        self._thread = threading.Thread(target=self._run, name="ltm-api-server", daemon=True)
        self._thread.start()
        return True

    def _run(self) -> None:
        asyncio.run(self._main())

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        try:
            await self.server.start()
        except (LtmError, OSError) as exc:
            self.other_server = isinstance(exc, ServerAlreadyRunning)
            self.error = str(exc)
            return
        except Exception as exc:  # a bug: report it in the status bar, keep the app running
            log.exception("the agent API failed to start")
            self.error = f"the agent API failed to start: {exc}"
            return
        finally:
            self._ready.set()
        await self._stop.wait()
        await self.server.stop()

    def stop(self) -> None:
        """Stop serving and wait for the thread (also when start() gave up waiting)."""
        if not self._thread.is_alive():
            return
        self._ready.wait()  # the loop and its stop event exist from then on
        if self._loop is not None and self._stop is not None:
            with contextlib.suppress(RuntimeError):  # the loop already finished
                self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join()

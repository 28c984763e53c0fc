"""The HTTP API on a thread of its own: a loopback socket, a token file, uvicorn.

The socket is bound in ``start`` (so a refused address or a busy port is an error the
caller sees at once) and handed to uvicorn, which runs its own event loop on its own
thread: neither the socket API's loop nor the GUI thread ever waits on it. The service
is called on a few threads of the server's own, which end with it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import socket
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import uvicorn

from ltm_desktop.api import runtime
from ltm_desktop.api.http.app import build_app
from ltm_desktop.api.http.deadline import with_read_timeout
from ltm_desktop.api.http.guard import loopback_hosts
from ltm_desktop.api.http.options import HttpOptions
from ltm_desktop.api.methods import Dispatcher  # bound to every method
from ltm_desktop.core.errors import LtmError
from ltm_desktop.core.service import MemoryService

log = logging.getLogger(__name__)
GRACE = 3  # seconds answers in progress get to finish at stop
STOP_TIMEOUT = GRACE + 2.0  # then ``stop`` stops waiting for the server's thread


class _CutShort(logging.Filter):
    """An answer uvicorn cancels at stop is one line, not a traceback of the cancellation."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and isinstance(record.exc_info[1], asyncio.CancelledError):
            record.msg, record.args = "HTTP: an answer still running at stop was cut short", ()
            record.exc_info = record.exc_text = None
        return True


CUT_SHORT = _CutShort()


def listening_socket(host: str, port: int, family: socket.AddressFamily) -> socket.socket:
    """A TCP socket listening on (host, port), made with its protocol named: asyncio sets
    ``TCP_NODELAY`` on an accepted connection only when its ``proto`` is IPPROTO_TCP, and
    ``socket.create_server``'s is 0, so every answer on a kept-alive connection waited
    for the peer's delayed ACK (Nagle): 43 ms a request, against 1 ms on a new one."""
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as create_server does
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        sock.bind((host, port))
        sock.listen()
    except BaseException:
        sock.close()
        raise
    return sock


class _Uvicorn(uvicorn.Server):
    """Says when it accepts connections (uvicorn has no hook for that)."""

    def __init__(self, config: uvicorn.Config, ready: threading.Event) -> None:
        super().__init__(config)
        self.ready = ready

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        self.ready.set()


class HttpServer:
    """Serves one MemoryService over HTTP on loopback until ``stop``."""

    def __init__(self, service: MemoryService, options: HttpOptions) -> None:
        self.service = service
        self.options = options
        self.address: tuple[str, int] | None = None
        self.token_file: Path | None = None
        self._sock: socket.socket | None = None
        self._server: _Uvicorn | None = None
        self._thread: threading.Thread | None = None
        self._pool: ThreadPoolExecutor | None = None
        self._failure: str | None = None

    def describe(self) -> str:
        """``http:127.0.0.1:PORT`` (the startup line's form); empty before ``start``."""
        if self.address is None:
            return ""
        host, port = self.address
        return f"http:[{host}]:{port}" if ":" in host else f"http:{host}:{port}"

    def start(self, timeout: float = 15.0) -> None:
        """Bind, write the token file, serve; raises LtmError/OSError when it cannot."""
        host, port = self.options.address
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self._sock = listening_socket(host, port, family)
        try:
            self.address = (host, int(self._sock.getsockname()[1]))
            token = secrets.token_urlsafe(32)
            self.token_file = runtime.runtime_dir() / f"http-{self.address[1]}.token"
            runtime.write_private_file(self.token_file, token)
            self._pool = ThreadPoolExecutor(self.options.workers, thread_name_prefix="ltm-http")
            app = build_app(
                Dispatcher(self.service),
                self._pool,
                token,
                sorted(loopback_hosts(*self.address)),
                self.options.allowed_origins,
            )
            config = uvicorn.Config(
                app,
                log_config=None,  # the app's logging stays as the app set it up
                access_log=False,
                lifespan="off",
                loop="asyncio",
                http=with_read_timeout(self.options.read_timeout),
                proxy_headers=False,  # no proxy in front: X-Forwarded-* are the peer's words
                server_header=False,
                limit_concurrency=self.options.max_connections,
                timeout_graceful_shutdown=GRACE,
            )
            if CUT_SHORT not in logging.getLogger("uvicorn.error").filters:
                logging.getLogger("uvicorn.error").addFilter(CUT_SHORT)
            ready = threading.Event()
            self._server = _Uvicorn(config, ready)
            self._thread = threading.Thread(target=self._run, name="ltm-http-server", daemon=True)
            self._thread.start()
            if not ready.wait(timeout):
                raise LtmError(f"the HTTP API did not start within {timeout:.0f} s")
            if self._failure is not None:
                raise LtmError(f"the HTTP API could not start: {self._failure}")
        except BaseException:
            self.stop()
            raise

    def _run(self) -> None:
        assert self._server is not None
        assert self._sock is not None
        try:
            self._server.run(sockets=[self._sock])
        except BaseException as exc:  # uvicorn may even sys.exit(); the caller reports it
            log.error("the HTTP API stopped: %s", exc, exc_info=True)
            self._failure = str(exc) or type(exc).__name__
        finally:
            self._server.ready.set()

    def stop(self) -> None:
        """Stop serving, wait (a bounded time) for the thread and the calls in progress,
        remove the token file (idempotent)."""
        if self._server is not None:
            self._server.should_exit = True
        stuck = False
        if self._thread is not None and self._thread.is_alive():
            self._thread.join(STOP_TIMEOUT)
            stuck = self._thread.is_alive()
            if stuck:
                log.warning("the HTTP API did not stop within %d s; left behind", STOP_TIMEOUT)
        if self._pool is not None:  # calls already running finish (a write commits)
            self._pool.shutdown(wait=not stuck, cancel_futures=True)
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._sock.close()
        if self.token_file is not None:
            self.token_file.unlink(missing_ok=True)

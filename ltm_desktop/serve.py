"""``ltm-desktop serve``: the API server in the foreground until SIGINT/SIGTERM.

An entry point (like cli.py), so it may compose the store, the service and the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import signal
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from ltm_desktop import __version__
from ltm_desktop.agent.long_lived import agent_workers
from ltm_desktop.api import runtime
from ltm_desktop.api.http.options import HttpOptions, http_options
from ltm_desktop.api.listeners import Listeners, open_listeners
from ltm_desktop.api.runtime import Endpoint, EndpointError, default_data_dir, socket_for
from ltm_desktop.api.server import ApiServer, ServerOptions
from ltm_desktop.core.errors import LtmError
from ltm_desktop.core.settings.config import Settings
from ltm_desktop.core.settings.launch import Launch, resolve_launch
from ltm_desktop.launching import open_launch

ENV_WARM_MCP = "LTM_DESKTOP_MCP_WARM"  # "0": no warm MCP process (ltm_desktop.agent.mcp.warm)


def server_options(
    data_dir: Path, socket: str | None, tcp: str | None, config: Path | None = None
) -> ServerOptions:
    """``config``: the settings file the warm MCP process reads (the server's)."""
    path = socket_for(data_dir, socket)
    tcp = tcp or os.environ.get(runtime.ENV_TCP) or None
    is_default = not socket and not os.environ.get(runtime.ENV_SOCKET)
    publish = is_default and data_dir.resolve() == default_data_dir().resolve()
    companion = None
    if os.environ.get(ENV_WARM_MCP, "1") != "0":
        from ltm_desktop.agent.mcp.warm import start_warm_mcp

        companion = functools.partial(start_warm_mcp, data_dir, config)
    return ServerOptions(
        socket_path=path,
        tcp=runtime.parse_tcp(tcp) if tcp else None,
        publish_endpoint=publish,
        companion=companion,
    )


def serve(
    data_dir: str | None,
    config: str | None,
    socket: str | None,
    tcp: str | None,
    *,
    warn: Callable[[Sequence[str]], None],
    workers: int = 1,
    http: str | None = None,
    database_url: str | None = None,
) -> int:
    """Run until a signal; returns the process exit code. Raises LtmError on startup failure.

    ``http``: also serve the HTTP API there (None: as ``[http] listen`` says).
    ``database_url``: ``--database-url`` (None: the environment's, else the config file's).

    With ``workers`` > 1 the parent binds the endpoint (and holds the locks), then forks
    that many processes that all accept on it: one Python process is bound by its GIL.
    """
    if workers > 1 and not hasattr(os, "fork"):
        raise LtmError("--workers needs a system with fork() (Linux, macOS); use --workers 1")
    launch = resolve_launch(data_dir, config, database_url)  # once: the workers are forked with it
    # an unreachable PostgreSQL server queues writes in the data dir's outbox (each worker
    # keeps one on the same file; one process replays at a time)
    opened = open_launch(launch, background=workers <= 1, offline=True, workers=agent_workers)
    warn(opened.warnings)
    service = opened.service
    offline = service.offline.status()
    if offline.offline:
        warn(
            [
                f"{offline.problem}; serving offline: agents' writes are queued in this data "
                "dir's outbox and written when the database answers"
            ]
        )
    warn([p.describe() for p in service.memory_md.problems()])
    data_path = service.paths.data_dir
    try:
        options = server_options(data_path, socket, tcp, opened.config_path)
        web = _http_options(http, opened.settings, warn)
        if web is not None and workers > 1:
            if http is not None:
                raise LtmError("the HTTP API is served with --workers 1 only (--http)")
            warn(
                [
                    f"the HTTP API ([http] listen) is not served with --workers {workers}; "
                    "--workers 1 serves it"
                ]
            )
            web = None
        if workers <= 1:
            asyncio.run(_run(ApiServer(service, data_path, options), announce=True, http=web))
            return 0
    finally:
        service.close()  # before forking: children open their own connections
    return _serve_forked(launch, options, workers)


def _http_options(
    http: str | None, settings: Settings, warn: Callable[[Sequence[str]], None]
) -> HttpOptions | None:
    """``--http`` (a bad one is an error) or ``[http] listen`` (a bad one is a warning:
    the agent API is served without HTTP, as the app does; a config file never stops it)."""
    if http is not None:
        return http_options(http, settings)
    try:
        return http_options(None, settings)
    except EndpointError as exc:
        warn([f"the HTTP API is not served ([http] listen): {exc}"])
        return None


def _announce(data_dir: Path, endpoint: Endpoint, workers: int = 1, http: str = "") -> None:
    extra = f" with {workers} worker processes" if workers > 1 else ""
    where = " ".join(filter(None, (endpoint.describe(), http)))
    print(f"ltm-desktop {__version__} serving {data_dir} on {where}{extra}", flush=True)


async def _run(server: ApiServer, *, announce: bool, http: HttpOptions | None = None) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    endpoint = await server.start()
    web = None
    try:
        if http is not None:  # after the socket: its data dir lock refuses a second server
            from ltm_desktop.api.http.server import HttpServer

            web = HttpServer(server.service, http)
            await loop.run_in_executor(None, web.start)
        if announce:
            _announce(server.data_dir, endpoint, http=web.describe() if web else "")
        await stop.wait()
    finally:
        if web is not None:
            await loop.run_in_executor(None, web.stop)
        await server.stop()


def _serve_forked(launch: Launch, options: ServerOptions, workers: int) -> int:
    listeners = open_listeners(launch.data_dir, options.socket_path, options.tcp)
    children: list[int] = []
    stopper = _Stopper(children)
    try:
        for index in range(workers):
            if stopper.stopping:
                return 0
            # held over the fork: the child must not run the parent's handler, and the
            # parent must know the child's pid before it handles a signal
            signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
            pid = os.fork()
            if pid == 0:  # the worker: never returns into the parent's code
                _worker_signals()
                code = WORKER_REPORTED
                try:
                    code = _worker(launch, options, listeners, index)
                except Exception as exc:  # said once, here; the parent adds nothing
                    _report(f"worker process {index + 1} could not serve: {exc}")
                finally:
                    os._exit(code)
            children.append(pid)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
        _announce(launch.data_dir, listeners.endpoint, workers)
        return _supervise(stopper)
    finally:
        for pid in children:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        for pid in children:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
        listeners.close()


WORKER_REPORTED = 1  # a worker's exit status when it has printed its own error


def _report(message: str) -> None:
    print(f"ltm-desktop: error: {' '.join(message.splitlines())}", file=sys.stderr, flush=True)


def _describe_end(status: int) -> str:
    code = os.waitstatus_to_exitcode(status)
    if code >= 0:
        return f"exited with status {code}"
    with contextlib.suppress(ValueError):
        return f"was killed by signal {-code} ({signal.Signals(-code).name})"
    return f"was killed by signal {-code}"


STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}


class _Stopper:
    """SIGINT/SIGTERM for the parent of the workers: installed before the first fork, so
    a signal at any moment (even right after the ready line) stops every worker, and none
    is left serving as an orphan."""

    def __init__(self, children: list[int]) -> None:
        self.children = children
        self.stopping = False
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, self.stop)

    def stop(self, signum: int = signal.SIGTERM, frame: object = None) -> None:
        self.stopping = True
        for pid in self.children:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)


def _supervise(stopper: _Stopper) -> int:
    """Wait for SIGINT/SIGTERM (then stop the workers, exit 0) or a worker's death (exit 1)."""
    if stopper.stopping:  # a signal came while a worker was being forked
        stopper.stop()
    alive = set(stopper.children)
    failed = False
    while alive:
        try:
            pid, status = os.wait()
        except ChildProcessError:
            break
        alive.discard(pid)
        if not stopper.stopping:  # a worker died on its own: stop the others, report it
            failed = True
            if os.waitstatus_to_exitcode(status) != WORKER_REPORTED:
                _report(f"worker process {pid} {_describe_end(status)}; stopping the server")
            stopper.stop()
    return 1 if failed else 0


def _worker_signals() -> None:
    """A new worker's signals: SIGINT ignored (the parent decides; it sends SIGTERM), and
    SIGTERM ends it, also one that came while it was being forked."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)


def _worker(launch: Launch, options: ServerOptions, listeners: Listeners, index: int) -> int:
    opened = open_launch(  # one backfill; every worker queues writes while offline
        launch, background=index == 0, offline=True, workers=agent_workers
    )
    try:
        worker_options = replace(
            options,
            publish_endpoint=False,
            # one worker is enough to expire memories; the others effectively never do
            housekeeping_interval=options.housekeeping_interval if index == 0 else 10**9,
        )
        asyncio.run(
            _run(
                ApiServer(opened.service, launch.data_dir, worker_options, listeners),
                announce=False,
            )
        )
    finally:
        opened.service.close()
    return 0

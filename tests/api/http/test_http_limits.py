"""The HTTP API's bounds over real loopback sockets: its own threads, a deadline for
reading each request, a prompt stop, no trust in proxy headers (review findings)."""

from __future__ import annotations

import logging
import select
import socket
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from ltm_desktop.api.http.options import HttpOptions
from ltm_desktop.api.http.server import HttpServer
from ltm_desktop.core.service import MemoryService
from tests.api.conftest import wait_until
from tests.api.http_calls import HttpCaller
from tests.hang import finishes
from tests.store.test_readers import open_descriptors

pytestmark = pytest.mark.every_backend

CWD = "/home/dev/src/shop"
Serve = Callable[..., tuple[HttpServer, HttpCaller]]


@pytest.fixture
def serve(service: MemoryService) -> Iterator[Serve]:
    started: list[HttpServer] = []

    def start(**options: Any) -> tuple[HttpServer, HttpCaller]:
        web = HttpServer(service, HttpOptions(("127.0.0.1", 0), **options))
        started.append(web)
        web.start()
        assert web.address is not None
        assert web.token_file is not None
        return web, HttpCaller(*web.address, web.token_file.read_text())

    yield start
    for web in started:
        web.stop()


def stalled(api: HttpCaller, data: bytes) -> socket.socket:
    """A connection that sent ``data`` (less than a whole request) and then nothing."""
    sock = socket.create_connection((api.host, api.port), timeout=30)
    sock.sendall(data)
    return sock


def dropped_within(sock: socket.socket, seconds: float) -> bool:
    """Whether the server closes ``sock``, without a word, within ``seconds``."""
    sock.settimeout(seconds)
    try:
        return sock.recv(1024) == b""
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True


def trickled_until_dropped(sock: socket.socket, data: bytes) -> bool:
    """Send ``data`` a byte at a time, waiting up to 0.1 s after each for the server to
    hang up; whether it did before the end."""
    try:
        for byte in data:
            sock.sendall(bytes([byte]))
            hung_up, _, _ = select.select([sock], [], [], 0.1)
            if hung_up and sock.recv(1) == b"":
                return True
    except (BrokenPipeError, ConnectionResetError):
        return True
    return False


def upload_start(api: HttpCaller) -> bytes:
    """The headers of a good request and the first byte of its 99-byte body."""
    return (
        f"POST /api/memory/remember HTTP/1.1\r\nHost: 127.0.0.1:{api.port}\r\n"
        f"Authorization: Bearer {api.token}\r\nContent-Type: application/json\r\n"
        "Content-Length: 99\r\n\r\n{"
    ).encode()


PARTIAL_HEADER = b"GET /api/memory/health HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthor"


# -- the service is called on the server's own threads -------------------------------


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")
def test_calls_run_on_a_few_threads_that_live_as_long_as_the_server(
    serve: Serve, service: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each thread that reads holds a SQLite connection: with anyio's pool, which starts
    up to 40 threads and retires them after 10 s idle, bursts of requests opened new
    connections without bound (review: 21 -> 57 -> 79 -> 93 descriptors)."""
    web, api = serve()
    recall = service.search.recall
    callers: set[threading.Thread] = set()
    assert api.get("recall", cwd=CWD, q="warm").status == 200
    before = open_descriptors(service.paths.db_path)
    together = threading.Barrier(web.options.workers, timeout=30)

    def overlapping_recall(*args: Any, **kwargs: Any) -> Any:
        callers.add(threading.current_thread())
        together.wait()  # the calls of a burst overlap, as they did in the review
        return recall(*args, **kwargs)

    monkeypatch.setattr(service.search, "recall", overlapping_recall)
    with ThreadPoolExecutor(20) as burst:
        for _ in range(3):
            answers = list(burst.map(lambda i: api.get("recall", cwd=CWD, q=f"q{i}"), range(20)))
            assert [a.status for a in answers] == [200] * 20
    assert len(callers) <= web.options.workers
    assert all(t.name.startswith("ltm-http") and t.is_alive() for t in callers)
    assert open_descriptors(service.paths.db_path) <= before + web.options.workers
    web.stop()
    assert not any(t.is_alive() for t in callers)


# -- a deadline for reading each request ---------------------------------------------


@pytest.mark.slow
def test_stalled_peers_are_dropped_and_cannot_lock_the_api_out(serve: Serve) -> None:
    """More half-open connections than ``max_connections`` (64) answered 503 to every
    request for as long as their peers kept them open."""
    web, api = serve()
    peers = [stalled(api, PARTIAL_HEADER) for _ in range(70)]
    try:
        assert all(dropped_within(p, web.options.read_timeout + 5) for p in peers)
        assert api.get("health").status == 200
    finally:
        for peer in peers:
            peer.close()


@pytest.mark.slow
def test_a_slow_body_and_a_trickled_header_are_dropped(
    serve: Serve, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    _, api = serve(read_timeout=0.5)
    with stalled(api, upload_start(api)) as body:
        assert dropped_within(body, 10)
    trickle = stalled(api, b"G")
    with trickle:  # a byte every 0.1 s keeps the peer busy, not the server
        assert trickled_until_dropped(trickle, PARTIAL_HEADER[1:] * 100)
    assert api.get("health").status == 200
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    said = [r.getMessage() for r in caplog.records]
    assert any("left before sending its body" in line for line in said), said
    assert any("did not send a whole request in time" in line for line in said), said


def test_a_whole_request_is_answered_however_long_the_answer_takes(
    serve: Serve, service: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The deadline is for reading the request; our own work is not cut short."""
    _, api = serve(read_timeout=0.2)
    stats, called, release = service.stats, threading.Event(), threading.Event()

    def held_stats(*args: Any, **kwargs: Any) -> Any:
        called.set()
        assert release.wait(30)
        return stats(*args, **kwargs)

    monkeypatch.setattr(service, "stats", held_stats)
    with ThreadPoolExecutor(1) as waiting:
        answer = waiting.submit(api.get, "stats", cwd=CWD)
        assert called.wait(30)
        with stalled(api, PARTIAL_HEADER) as late:  # dropped: the deadline has passed
            assert dropped_within(late, 10)
        release.set()
        assert answer.result().status == 200


# -- stopping --------------------------------------------------------------------------


def test_stop_is_prompt_and_quiet_with_a_stalled_upload(
    serve: Serve, caplog: pytest.LogCaptureFixture
) -> None:
    """A stalled upload made stop wait for it and log a traceback (review finding); the
    upload would be read for minutes here (bench/http_bench.py times the stop)."""
    web, api = serve(read_timeout=600)
    with stalled(api, upload_start(api)):
        assert api.get("health").status == 200  # the upload's headers were read before
        finishes(web.stop)
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


# -- proxy headers -----------------------------------------------------------------------


def test_forwarded_headers_are_not_trusted(serve: Serve) -> None:
    """Nothing stands between the API and its loopback peers, so ``X-Forwarded-*`` are
    whatever a peer claims; uvicorn trusted them from 127.0.0.1 by default."""
    _, api = serve()
    answer = api.request(
        "GET",
        "/api/memory/health/",
        headers={"X-Forwarded-Proto": "https", "X-Forwarded-For": "10.1.2.3"},
    )
    assert answer.status == 307  # the redirect names the scheme the server believes
    assert answer.headers["location"] == f"http://127.0.0.1:{api.port}/api/memory/health"


@pytest.mark.slow
def test_an_answer_cut_short_at_stop_is_one_log_line(
    serve: Serve,
    service: MemoryService,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A call still running after the grace period is cancelled; the log says so in a
    line, without the traceback of the cancellation."""
    web, api = serve()
    stats, called = service.stats, threading.Event()

    def slow_stats(*args: Any, **kwargs: Any) -> Any:
        called.set()  # runs on until the server has cut its answer short and ended
        wait_until(lambda: web._thread is not None and not web._thread.is_alive(), 30)
        return stats(*args, **kwargs)

    monkeypatch.setattr(service, "stats", slow_stats)
    with ThreadPoolExecutor(1) as waiting:
        answer = waiting.submit(api.get, "stats", cwd=CWD)
        assert called.wait(30)
        finishes(web.stop)
        assert answer.result().status == 500
    assert not [r for r in caplog.records if r.exc_info]
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]

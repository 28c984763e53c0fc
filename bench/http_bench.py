"""HTTP API benchmark: a request on a kept-alive connection against one on a new connection.

Run on demand (not part of the test suite):

    .venv/bin/python bench/http_bench.py [--requests 200] [--baseline-listener]

Both sides send ``GET /api/memory/health`` to the same in-process ``HttpServer``
(loopback, token auth), interleaved: one through a single kept-alive
``http.client.HTTPConnection``, one through a new connection per request; p50 and p95 of
each, and their ratio (target: a kept-alive request within 1.5x of a new-connection one;
Nagle's delay made it 40x). Then how long ``stop`` takes with a peer stalled halfway
through an upload, against a stop with no peer (a stalled upload once held it 4 s; the
tests only say it does not hang). ``--baseline-listener`` serves from a ``socket.create_server``
listener instead (the code before the fix), to see the difference in the same run.
"""

from __future__ import annotations

import argparse
import http.client
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ltm_desktop.api.http import server as http_server  # noqa: E402
from ltm_desktop.api.http.options import HttpOptions  # noqa: E402
from ltm_desktop.core.service import MemoryService  # noqa: E402
from ltm_desktop.launching import open_service  # noqa: E402

TARGET = 1.5  # a kept-alive request / a new-connection request


def timed(conn: http.client.HTTPConnection, headers: dict[str, str]) -> float:
    start = time.perf_counter()
    conn.request("GET", "/api/memory/health", headers=headers)
    response = conn.getresponse()
    response.read()
    assert response.status == 200, response.status
    return (time.perf_counter() - start) * 1000


def stop_seconds(service: MemoryService, stalled_upload: bool) -> float:
    """How long ``HttpServer.stop`` takes, with or without a peer stalled in its body."""
    server = http_server.HttpServer(service, HttpOptions(("127.0.0.1", 0), read_timeout=600))
    server.start()
    assert server.address is not None
    peer = None
    if stalled_upload:
        peer = socket.create_connection(server.address, timeout=30)
        peer.sendall(
            b"POST /api/memory/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nContent-Length: 99\r\n\r\n{"
        )
    start = time.perf_counter()
    server.stop()
    took = time.perf_counter() - start
    if peer is not None:
        peer.close()
    return took


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--baseline-listener", action="store_true")
    args = parser.parse_args()
    if args.baseline_listener:  # the listener before the fix: proto 0, Nagle left on
        http_server.listening_socket = lambda host, port, family: socket.create_server(
            (host, port), family=family
        )
    scratch = Path(tempfile.mkdtemp(prefix="ltm-http-bench-"))
    opened = open_service(scratch / "data")
    server = http_server.HttpServer(opened.service, HttpOptions(("127.0.0.1", 0)))
    server.start()
    try:
        assert server.address is not None
        assert server.token_file is not None
        host, port = server.address
        headers = {"Authorization": f"Bearer {server.token_file.read_text().strip()}"}
        kept = http.client.HTTPConnection(host, port, timeout=30)
        kept_ms, new_ms = [], []
        for _ in range(args.requests):
            kept_ms.append(timed(kept, headers))
            fresh = http.client.HTTPConnection(host, port, timeout=30)
            new_ms.append(timed(fresh, headers))
            fresh.close()
        kept.close()
        server.stop()
        stops = {
            label: statistics.median(stop_seconds(opened.service, stalled) for _ in range(5))
            for label, stalled in (("stalled upload", True), ("no peer", False))
        }
    finally:
        server.stop()
        opened.service.close()
    p50_kept, p50_new = statistics.median(kept_ms), statistics.median(new_ms)
    p95 = statistics.quantiles(kept_ms, n=20)[18], statistics.quantiles(new_ms, n=20)[18]
    ratio = p50_kept / p50_new
    listener = "socket.create_server (before)" if args.baseline_listener else "listening_socket"
    print(f"listener: {listener}; {args.requests} requests each side, interleaved")
    print(f"  kept-alive connection  p50 {p50_kept:7.2f} ms   p95 {p95[0]:7.2f} ms")
    print(f"  new connection         p50 {p50_new:7.2f} ms   p95 {p95[1]:7.2f} ms")
    verdict = "ok" if ratio <= TARGET else "MISS"
    print(f"  kept-alive / new       x{ratio:.2f}   target <=x{TARGET}: {verdict}")
    held, idle = stops["stalled upload"], stops["no peer"]
    print(
        f"stop with a stalled upload {held * 1e3:7.1f} ms   with no peer {idle * 1e3:7.1f} ms"
        f"   x{held / idle:.2f} (median of 5)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The offline outbox under an outage: ``python -m bench.machines.outbox_bench [--writes 1000]``.

A throwaway PostgreSQL cluster (scripts/pg_cluster.py) and a real ``ltm-desktop serve``
on it (data dir A). Once A has noticed that the server was stopped (``health`` says
offline), one agent client writes ``--writes`` memories through the socket, each one
acknowledged as queued once it is fsynced in the outbox (WAL, ``synchronous = FULL``):
p50 / p95 / max per write, measured by the client (the socket's round trip included).
Then PostgreSQL starts again: the time until the outbox is empty (the replay through the
core's write path, one transaction per write), and a second data dir B counts them.

Goal (issue #34): each queued write acknowledged within 100 ms.
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from ltm_desktop.api.client import Client
from ltm_desktop.launching import open_service
from scripts import pg_cluster

CWD = "/srv/bench-shop"


def _wait(predicate: Callable[[], bool], timeout: float) -> float:
    """Seconds until ``predicate`` held (polled every 10 ms)."""
    start = time.monotonic()
    tick = threading.Event()
    while not predicate():
        if time.monotonic() - start > timeout:
            raise SystemExit(f"not within {timeout} s")
        tick.wait(0.01)
    return time.monotonic() - start


def _text(i: int) -> str:
    """A memory unlike every other (no dedup, no supersede between them)."""
    return f"Outage note {i}: " + " ".join(secrets.token_hex(4) for _ in range(8))


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writes", type=int, default=1_000)
    args = parser.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="ltm-outbox-bench-"))
    root.chmod(0o755)  # the cluster's user must reach its directory
    cluster = pg_cluster.start_cluster(root / "pg")
    env = {**os.environ, "LTM_DESKTOP_DATABASE_URL": cluster.url, "LTM_DESKTOP_MCP_WARM": "0"}
    data_a, sock = root / "a", root / "a.sock"
    server = subprocess.Popen(
        [sys.executable, "-m", "ltm_desktop", "--data-dir", str(data_a), "serve",
         "--socket", str(sock)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env,
    )  # fmt: skip
    try:
        assert server.stdout is not None
        print(server.stdout.readline().strip())
        client = Client(sock, client_name="bench-agent", timeout=60)
        client.call("memory.add", {"cwd": CWD, "content": _text(-1)})  # the scope exists
        cluster.halt()
        noticed = _wait(lambda: bool(client.health()["outbox"]["offline"]), 60)
        print(f"PostgreSQL stopped; serve noticed after {noticed:.1f} s")
        ids, times = [], []
        for i in range(args.writes):
            start = time.perf_counter()
            ack = client.call("memory.add", {"cwd": CWD, "content": _text(i)})
            times.append((time.perf_counter() - start) * 1000)
            assert ack["status"] == "queued", ack
            ids.append(ack["memory"]["id"])
        print(
            f"{args.writes} writes queued: p50 {statistics.median(times):.2f} ms, "
            f"p95 {_percentile(times, 0.95):.2f} ms, max {max(times):.2f} ms "
            f"({sum(1 for t in times if t > 100)} over 100 ms)"
        )
        cluster.resume()
        replayed = _wait(lambda: client.health()["outbox"]["waiting"] == 0, 600)
        print(f"PostgreSQL started; outbox empty after {replayed:.1f} s "
              f"({args.writes / replayed:.0f} writes/s replayed)")  # fmt: skip
        client.close()
        desktop = open_service(root / "b", database_url=cluster.url).service
        try:
            found = sum(1 for memory_id in ids if desktop.get(memory_id).content)
        finally:
            desktop.close()
        print(f"found from a second data dir: {found} of {args.writes}")
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(60)
        cluster.stop()
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

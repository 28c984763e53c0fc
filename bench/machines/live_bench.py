"""Live changes across machines: how soon a write on machine A is announced on machine B.

Run on demand (not part of the test suite):

    .venv/bin/python bench/machines/live_bench.py --database-url postgresql://user@host:5432/postgres
        [--writes 100]

Two data dirs stand for two machines: each runs a real ``ltm-desktop serve`` on one
PostgreSQL database (made for the run on the server ``--database-url`` names, and dropped
after it). A client subscribed to B's ``events.subscribe`` waits while another client
adds memories through A's socket, one at a time; for each write the bench records the
time from A's acknowledgement (and from the request's sending) to B's ``memory.changed``
notification, and from the acknowledgement to the moment
B's MEMORY.md for the project holds the write (its file polled every millisecond).
Goals (issue #34): notification p95 under 1 s, MEMORY.md under 2 s.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.pg_scratch import scratch_database  # noqa: E402
from ltm_desktop.api.client import Client  # noqa: E402
from ltm_desktop.core.settings.launch import ENV_DATABASE_URL  # noqa: E402

WAIT_S = 10.0  # a write not announced by then counts as missed


def ms(seconds: float) -> float:
    return seconds * 1000


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def serve(data_dir: Path, sock: Path, url: str) -> subprocess.Popen[str]:
    env = dict(os.environ, **{ENV_DATABASE_URL: url, "LTM_DESKTOP_MCP_WARM": "0"})
    process = subprocess.Popen(
        [sys.executable, "-m", "ltm_desktop", "--data-dir", str(data_dir), "serve"]
        + ["--socket", str(sock)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    if "serving" not in line:
        raise SystemExit(f"serve did not start: {line} {process.stderr and process.stderr.read()}")
    return process


class Subscriber(threading.Thread):
    """B's subscriber: the arrival time of each memory's first notification."""

    def __init__(self, sock: Path) -> None:
        super().__init__(name="subscriber", daemon=True)
        self.client = Client(sock, client_name="bench-watcher")
        self.client.connect()
        self.client.events_subscribe()
        self.arrived: dict[str, float] = {}
        self.cond = threading.Condition()
        self.stopping = False

    def run(self) -> None:
        while not self.stopping:
            event = self.client.next_event(timeout=0.5)
            if event is None:
                continue
            at = time.perf_counter()
            with self.cond:
                self.arrived.setdefault(event["params"]["id"], at)
                self.cond.notify_all()

    def wait_for(self, memory_id: str, timeout: float) -> float | None:
        deadline = time.perf_counter() + timeout
        with self.cond:
            while memory_id not in self.arrived:
                left = deadline - time.perf_counter()
                if left <= 0:
                    return None
                self.cond.wait(left)
            return self.arrived[memory_id]


def file_holds(path: Path, text: str, timeout: float) -> float | None:
    """When ``path`` first holds ``text`` (polled every millisecond), or None."""
    deadline = time.perf_counter() + timeout
    tick = threading.Event()
    while time.perf_counter() < deadline:
        try:
            if text in path.read_text(encoding="utf-8"):
                return time.perf_counter()
        except OSError:
            pass
        tick.wait(0.001)
    return None


def run(url: str, writes: int, root: Path) -> None:
    socks = (root / "a.sock", root / "b.sock")
    servers = [serve(root / name, sock, url) for name, sock in zip(("a", "b"), socks, strict=True)]
    try:
        watcher = Subscriber(socks[1])
        watcher.start()
        notified: list[float] = []  # from A's acknowledgement
        from_sent: list[float] = []  # from the moment the write was sent to A
        on_file: list[float] = []
        missed = 0
        with Client(socks[0], client_name="bench-writer") as writer:
            warm = writer.memory_add("a first write: scopes made, caches warm", cwd="/srv/shop")
            project = warm["memory"]["project_id"]
            memory_md = root / "b" / "precis" / project / "MEMORY.md"
            watcher.wait_for(warm["memory"]["id"], WAIT_S)
            for i in range(writes):
                text = f"live bench write {i} marker lvb{i}q"
                sent = time.perf_counter()
                added = writer.memory_add(text, cwd="/srv/shop", importance=10)
                acknowledged = time.perf_counter()
                arrived = watcher.wait_for(added["memory"]["id"], WAIT_S)
                written = file_holds(memory_md, f"lvb{i}q", WAIT_S)
                if arrived is None or written is None:
                    missed += 1
                    continue
                notified.append(arrived - acknowledged)
                from_sent.append(arrived - sent)
                on_file.append(written - acknowledged)
        watcher.stopping = True
        watcher.join(2)
        watcher.client.close()
    finally:
        for process in servers:
            process.terminate()
        for process in servers:
            process.wait(30)
    print(f"{writes} writes on A, {missed} not seen on B within {WAIT_S:.0f} s")
    if notified:
        print(
            "A acknowledged -> B notified: "
            f"p50 {ms(statistics.median(notified)):.1f} ms, p95 {ms(pct(notified, 0.95)):.1f} ms, "
            f"max {ms(max(notified)):.1f} ms (goal p95 < 1000 ms; negative: B heard of the "
            "write before A's reply reached its client)"
        )
        print(
            "A sent -> B notified: "
            f"p50 {ms(statistics.median(from_sent)):.1f} ms, "
            f"p95 {ms(pct(from_sent, 0.95)):.1f} ms, max {ms(max(from_sent)):.1f} ms"
        )
        print(
            "A acknowledged -> B's MEMORY.md holds it: "
            f"p50 {ms(statistics.median(on_file)):.1f} ms, p95 {ms(pct(on_file, 0.95)):.1f} ms, "
            f"max {ms(max(on_file)):.1f} ms (goal < 2000 ms)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", required=True, help="a server (may create databases)")
    parser.add_argument("--writes", type=int, default=100)
    args = parser.parse_args()
    with (
        scratch_database(args.database_url, "live") as url,
        tempfile.TemporaryDirectory(prefix="ltm-live-", dir="/tmp") as root,
    ):
        run(url, args.writes, Path(root))


if __name__ == "__main__":
    main()

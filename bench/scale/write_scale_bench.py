"""Write-scale benchmark: acknowledged adds over the socket at 10k, 100k and 1M memories.

Run on demand (not part of the test suite):

    .venv/bin/python bench/scale/write_scale_bench.py --keep DIR [--sizes 10000 100000 1000000]

A database of each size is built once into ``DIR/<size>`` (``bench/dataset.py``: the bench
corpus over 20 projects plus global; 1M takes minutes) and copied for each run. A server
(``api.server_thread``, the app's own) serves each copy; one client adds new texts to
the largest project of each, in rounds that alternate between the sizes (so the
machine's noise falls on all of them alike). Printed per size: adds per second, p50 and
p95 of a round trip, and the ratio to the smallest size (issue #32: adds at 1M at least
80 % of adds at 10k).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.corpus import generate  # noqa: E402
from bench.dataset import build, largest_project, open_bench_service  # noqa: E402
from ltm_desktop.api.client import Client  # noqa: E402
from ltm_desktop.api.server import ServerOptions  # noqa: E402
from ltm_desktop.api.server_thread import ServerThread  # noqa: E402
from ltm_desktop.core.service import MemoryService  # noqa: E402

TARGET = 0.8  # adds/s at the largest size / at the smallest


def prepared(keep: Path, size: int) -> Path:
    """``keep/<size>``, built now if it is not there yet."""
    data = keep / str(size)
    if not (data / "ltm.sqlite").exists():
        service = open_bench_service(data)
        _, seconds = build(service, size)
        service.close()
        print(f"built {size:,} memories in {seconds:.0f} s into {data}")
    return data


class Target:
    """One size: its copy, the service and server on it, a client, the project's path."""

    def __init__(self, source: Path, work: Path, size: int) -> None:
        self.size = size
        started = time.perf_counter()
        shutil.copytree(source, work, ignore=shutil.ignore_patterns("*.lock"))
        self.service: MemoryService = open_bench_service(work)  # migrates an older copy
        print(f"{size:>9,}: copied and opened in {time.perf_counter() - started:.0f} s")
        project = largest_project(self.service)
        self.path = self.service.store.get_project(project).path or "/"
        socket_path = Path(tempfile.mkdtemp(prefix="ltm-ws-")) / "s.sock"
        self.server = ServerThread(self.service, work, ServerOptions(socket_path=socket_path))
        if not self.server.start():
            raise SystemExit(f"the server did not start: {self.server.error}")
        self.client = Client(socket_path, client_name="bench")
        self.client.health()
        self.times: list[float] = []

    def add(self, content: str, title: str) -> None:
        started = time.perf_counter()
        self.client.memory_add(content, cwd=self.path, title=title)
        self.times.append(time.perf_counter() - started)

    def close(self) -> None:
        self.client.close()
        self.server.stop()
        self.service.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, required=True)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--rounds", type=int, default=20)  # 1,000 adds a size: 400 were noise
    parser.add_argument("--per-round", type=int, default=50)
    args = parser.parse_args()
    sources = {size: prepared(args.keep, size) for size in args.sizes}
    texts = list(generate(len(args.sizes) * args.rounds * args.per_round + 1, seed=4242))
    with tempfile.TemporaryDirectory(prefix="ltm-write-scale-") as tmp:
        targets = [Target(sources[s], Path(tmp) / str(s), s) for s in args.sizes]
        try:
            for target in targets:  # a first add of each scope warms what it loads once
                target.add(texts[0].content, texts[0].title)
                target.times.clear()
            n = 1
            for _ in range(args.rounds):
                for target in targets:
                    for _ in range(args.per_round):
                        target.add(texts[n].content, texts[n].title)
                        n += 1
        finally:
            for target in targets:
                target.close()
    base = len(targets[0].times) / sum(targets[0].times)
    print(f"\n{'memories':>10} {'adds/s':>8} {'p50 ms':>8} {'p95 ms':>8} {'vs smallest':>12}")
    for target in targets:
        rate = len(target.times) / sum(target.times)
        p95 = statistics.quantiles(target.times, n=20)[18]
        print(
            f"{target.size:>10,} {rate:8.0f} {statistics.median(target.times) * 1e3:8.2f} "
            f"{p95 * 1e3:8.2f} {rate / base:11.0%}"
        )
    worst = min(len(t.times) / sum(t.times) for t in targets) / base
    print(
        f"largest / smallest: {worst:.0%} (target >= {TARGET:.0%}: {'ok' if worst >= TARGET else 'MISS'})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Agent API benchmark: socket round trips against the same calls made in-process.

Run on demand (not part of the test suite):

    .venv/bin/python bench/api_bench.py [--memories 100000] [--keep DIR]

The server runs as a real ``ltm-desktop serve`` process on a 100,000-memory
database; clients are separate processes for the 8-client figure. Every figure
is printed next to its in-process baseline from the same run.
"""

from __future__ import annotations

import argparse
import multiprocessing
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.corpus import generate, sample_queries  # noqa: E402
from bench.dataset import build, draft, largest_project, open_bench_service  # noqa: E402
from ltm_desktop.api.client import Client  # noqa: E402
from ltm_desktop.core.service import MemoryService  # noqa: E402


def query_mix() -> list[str]:
    """The 40 sample queries (four classes), asked again and again: what the cache serves."""
    return [q for queries in sample_queries().values() for q in queries]


def unique_queries(count: int, seed: int) -> list[str]:
    """Never-repeated, realistic queries (titles of unseen memories): the cache cannot help."""
    return [sample.title for sample in generate(count, seed=seed)]


def ms(seconds: float) -> float:
    return seconds * 1000


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def client_worker(
    socket_path: str, project: str, queries: list[str], count: int, barrier: object, out: object
) -> None:
    """One client process: ``count`` searches, cycling through ``queries``."""
    with Client(socket_path, client_name="bench") as client:
        client.health()
        barrier.wait()  # type: ignore[attr-defined]
        start = time.perf_counter()
        for i in range(count):
            client.memory_search(queries[i % len(queries)], project_id=project, limit=5)
        out.put(time.perf_counter() - start)  # type: ignore[attr-defined]


def throughput(
    socket_path: Path, project: str, clients: int, per_client: int, unique: bool
) -> float:
    """Searches per second for ``clients`` client processes started together."""
    ctx = multiprocessing.get_context("fork")
    barrier, out = ctx.Barrier(clients + 1), ctx.Queue()
    if unique:
        pool = unique_queries(clients * per_client, seed=int(time.time()))
        slices = [pool[i * per_client : (i + 1) * per_client] for i in range(clients)]
    else:
        mix = query_mix()
        slices = [mix[i:] + mix[:i] for i in range(clients)]
    workers = [
        ctx.Process(
            target=client_worker,
            args=(str(socket_path), project, slices[i], per_client, barrier, out),
        )
        for i in range(clients)
    ]
    for worker in workers:
        worker.start()
    barrier.wait()
    start = time.perf_counter()
    for worker in workers:
        worker.join()
    wall = time.perf_counter() - start
    for _ in workers:
        out.get()
    return clients * per_client / wall


def latency(
    service: MemoryService, client: Client, project: str, queries: list[str], repeat: int
) -> tuple[list[float], list[float]]:
    """(in-process ms, socket ms) for ``repeat`` rounds over ``queries``; the in-process
    service and the server each have their own search cache, cold in round one. Each
    query is timed in-process and then over the socket, so that the machine's load
    drifting during the run weighs on both columns alike."""
    local, remote = [], []
    for _ in range(repeat):
        for query in queries:
            start = time.perf_counter()
            service.search.query(project, query, limit=5, reinforce=True)
            local.append(ms(time.perf_counter() - start))
            start = time.perf_counter()
            client.memory_search(query, project_id=project, limit=5)
            remote.append(ms(time.perf_counter() - start))
    return local, remote


def report_latency(label: str, local: list[float], remote: list[float]) -> None:
    p50, base50 = statistics.median(remote), statistics.median(local)
    verdict = "ok" if p50 < 3 and p50 <= 2 * base50 else "MISS"
    print(f"  {label}")
    print(
        f"    p50  socket {p50:7.3f} ms   in-process {base50:7.3f} ms   x{p50 / base50:5.2f}   target <3 ms and <=2x: {verdict}"
    )
    print(
        f"    p99  socket {pct(remote, 0.99):7.3f} ms   in-process {pct(local, 0.99):7.3f} ms   x{pct(remote, 0.99) / pct(local, 0.99):5.2f}"
    )


def start_server(data_dir: Path, socket_path: Path, workers: int, config: Path) -> subprocess.Popen:
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ltm_desktop",
            "--data-dir",
            str(data_dir),
            "--config",
            str(config),
            "serve",
            "--socket",
            str(socket_path),
            "--workers",
            str(workers),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    print(server.stdout.readline().strip())
    return server


def wait_for_vectors(socket_path: Path, patience: float = 900.0) -> None:
    """Wait until the server's backfill has given every memory its vector: measured
    during it, the searches shared two cores with the embedding of the whole corpus
    (session 12 saw 12 ms against 4.5 ms in-process). A corpus built or kept without
    vectors gets them here once, and a kept copy then has them."""
    started = time.perf_counter()
    with Client(socket_path, client_name="bench") as client:
        while True:
            status = client.health()["semantic_search"]
            done = not status["model"] or status["with_vectors"] >= status["memories"]
            if (done and not status["backfilling"]) or time.perf_counter() - started > patience:
                break
            time.sleep(0.5)  # a bench waits on a server it does not control
    print(f"vectors ready after {time.perf_counter() - started:.1f} s: {status}")


def stop_server(server: subprocess.Popen) -> None:
    server.terminate()
    print(f"server exited with {server.wait(timeout=30)} after SIGTERM")


def report_throughput(
    socket_path: Path, project: str, requests: int, unique: bool, label: str
) -> None:
    single = throughput(socket_path, project, 1, requests // 4, unique)
    eight = throughput(socket_path, project, 8, requests // 8, unique)
    verdict = "ok" if eight >= 2000 else "MISS"
    print(
        f"  {label + ':':38s} 1 client {single:6.0f} req/s, 8 clients {eight:6.0f} req/s (x{eight / single:4.2f})   target >=2000: {verdict}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=10, help="rounds over the repeated query mix")
    parser.add_argument("--unique", type=int, default=300, help="never-repeated queries timed")
    parser.add_argument("--requests", type=int, default=4_000, help="searches per throughput run")
    parser.add_argument("--adds", type=int, default=1_000)
    parser.add_argument("--workers", type=int, default=2, help="serve --workers (processes)")
    parser.add_argument(
        "--keep",
        metavar="DIR",
        help="build the database in DIR once and keep it; each run works on a copy, so "
        "runs stay comparable",
    )
    args = parser.parse_args()

    scratch = Path(tempfile.mkdtemp(prefix="ltm-api-bench-"))
    workdir = scratch / "data"
    if args.keep and (Path(args.keep) / "ltm.sqlite").exists():
        shutil.copytree(args.keep, workdir, ignore=shutil.ignore_patterns("*.lock"))
        print(f"working on a copy of {args.keep}")
    socket_path = scratch / "bench.sock"
    cached_config, uncached_config = scratch / "cached.toml", scratch / "uncached.toml"
    cached_config.write_text("")
    uncached_config.write_text("[search]\ncache_entries = 0\n")
    service = open_bench_service(workdir)
    if len(service.projects()) <= 1:
        _, seconds = build(service, args.memories)
        print(f"built {args.memories:,} memories in {seconds:.1f} s")
        if args.keep:
            service.close()
            shutil.copytree(workdir, args.keep, dirs_exist_ok=True)
            service = open_bench_service(workdir)
    project = largest_project(service)
    server = start_server(workdir, socket_path, args.workers, cached_config)
    wait_for_vectors(socket_path)
    try:
        active = service.count_memories(project)
        print(f"searching project {project} ({active:,} active memories + global)\n")
        with Client(socket_path, client_name="bench") as client:
            client.health()
            print("memory.search round trip (limit 5, reinforcing)")
            cold = unique_queries(args.unique, seed=int(time.time()))
            report_latency(
                f"{args.unique} unique queries (never cached)",
                *latency(service, client, project, cold, 1),
            )
            local, remote = latency(service, client, project, query_mix(), args.repeat)
            mix = len(query_mix())  # round one: asked for the first time on each side
            report_latency("40-query mix (4 classes), first time asked", local[:mix], remote[:mix])
            report_latency(
                f"40-query mix, asked again x{args.repeat - 1} (cached)", local[mix:], remote[mix:]
            )
            start = time.perf_counter()
            for _ in range(2_000):
                client.health()
            print(
                f"  bare protocol round trip (health): {ms((time.perf_counter() - start) / 2_000):.3f} ms"
            )
            print("\nsearch throughput over the socket (client processes)")
            report_throughput(
                socket_path, project, args.requests, False, "query mix, asked again (cache hits)"
            )
        stop_server(server)
        server = start_server(workdir, socket_path, args.workers, uncached_config)
        report_throughput(socket_path, project, args.requests, False, "query mix, search cache off")
        report_throughput(
            socket_path, project, args.requests, True, "never-seen titles (no cache help)"
        )
        with Client(socket_path, client_name="bench") as client:
            seed = int(time.time())  # new texts every run, or the adds would be dedups
            samples = list(generate(args.adds, seed=seed))
            start = time.perf_counter()
            for sample in samples:
                client.memory_add(
                    sample.content,
                    project_id=project,
                    title=sample.title,
                    importance=sample.importance,
                )
            remote_adds = args.adds / (time.perf_counter() - start)
        start = time.perf_counter()
        for sample in generate(args.adds, seed=seed + 1):
            service.add(project, draft(sample), "bench")
        local_adds = args.adds / (time.perf_counter() - start)
        print(f"\nmemory.add ({args.adds} new texts, each its own transaction)")
        print(
            f"  socket {remote_adds:7.0f} adds/s   in-process {local_adds:7.0f} adds/s   x{remote_adds / local_adds:5.2f}"
        )
    finally:
        stop_server(server)
        service.close()
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""``core_bench.py --database-url URL``: PostgreSQL beside SQLite, same corpus, same run.

The corpus (bench/dataset.py: 100,000 memories over 20 projects plus global, the same
seed, so the same memories in the same scopes) is imported into a SQLite data dir and
into a database made on the server for the run (``bench/pg_scratch.py``; dropped after
it), both through ``service.import_memories`` in batches of 2,000 (faster than ``migrate
--to``, which rebuilds every token set after its copy). Then, each figure alternating
between the engines so the shared machine's noise falls on both alike:

- agent search (limit 5, project + global, reinforcing, search cache off, words only)
  p50 / p95 per query class, in-process: the engine and the core above it;
- MEMORY.md regeneration (render + atomic write), in-process;
- single acknowledged adds over the socket: one client, ``memory.add`` to a real
  ``ltm-desktop serve`` process per engine, rounds of 50 alternating;
- 8 concurrent client processes searching through the same servers (``--workers 2``,
  cache off): the query mix and never-seen titles.

Acceptance (issue #33): search p95 within 3x SQLite's, adds/s at least half of SQLite's.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from bench.api_bench import throughput
from bench.corpus import generate, sample_queries
from bench.dataset import build, largest_project, open_bench_service
from bench.pg_scratch import database_url, open_pg_service, scratch_database
from ltm_desktop.api.client import Client
from ltm_desktop.core.memory_md.files import write_atomically
from ltm_desktop.core.service import MemoryService

ENGINES = ("sqlite", "pg")
SEARCH_P95_LIMIT = 3.0  # PostgreSQL's p95 at most 3x SQLite's
ADDS_FLOOR = 0.5  # PostgreSQL's adds/s at least half of SQLite's


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def line(label: str, sqlite: float, pg: float, unit: str = "ms", verdict: str = "") -> None:
    ratio = pg / sqlite if sqlite else float("nan")
    print(
        f"  {label:<36} SQLite {sqlite:>9.3f} {unit:<5} PostgreSQL {pg:>9.3f} {unit:<5} "
        f"x{ratio:>6.2f}  {verdict}"
    )


def alternating(
    calls: dict[str, Callable[[], object]], repeat: int, out: dict[str, list[float]]
) -> None:
    """Time each engine's call ``repeat`` times, the engines taking turns (ms)."""
    for i in range(repeat):
        order = ENGINES if i % 2 == 0 else ENGINES[::-1]
        for engine in order:
            started = time.perf_counter()
            calls[engine]()
            out[engine].append((time.perf_counter() - started) * 1000)


# -- the corpus --------------------------------------------------------------------------


def load(services: dict[str, MemoryService], memories: int, seed: int) -> None:
    """Import the corpus into each engine that has none yet; print the times."""
    seconds: dict[str, float] = {}
    for engine, service in services.items():
        if len(service.projects()) > 1:
            print(f"  {engine}: reusing the corpus already there")
            continue
        _, seconds[engine] = build(service, memories, seed)
        print(
            f"  {engine}: imported {memories:,} in {seconds[engine]:.1f} s "
            f"({memories / seconds[engine]:,.0f}/s, batches of 2,000)"
        )
    if len(seconds) == 2:
        line("load (import_memories)", seconds["sqlite"], seconds["pg"], "s")


# -- in-process figures ------------------------------------------------------------------


def bench_search(services: dict[str, MemoryService], project: str, repeat: int) -> list[float]:
    """p50 / p95 per query class; returns the p95 ratios (PostgreSQL / SQLite)."""
    print("\nagent search (limit 5, project + global, reinforcing, cache off, words only)")
    ratios = []
    for kind, queries in sample_queries().items():
        times: dict[str, list[float]] = {e: [] for e in ENGINES}
        hits = {e: 0 for e in ENGINES}
        for query in queries:
            for engine, service in services.items():  # warm: plans, caches, the first reinforce
                hits[engine] += len(service.search.query(project, query, limit=5))
            calls: dict[str, Callable[[], object]] = {
                e: (
                    lambda s=s, q=query: s.search.query(project, q, limit=5, reinforce=True)  # type: ignore[misc]
                )
                for e, s in services.items()
            }
            alternating(calls, repeat, times)
        sq95, pg95 = pct(times["sqlite"], 0.95), pct(times["pg"], 0.95)
        ratios.append(pg95 / sq95)
        label = f"{kind} ({hits['sqlite']}/{hits['pg']} hits, {len(queries)} q)"
        line(f"{label} p50", statistics.median(times["sqlite"]), statistics.median(times["pg"]))
        ok = "ok" if pg95 <= SEARCH_P95_LIMIT * sq95 else "MISS"
        line(f"{kind} p95", sq95, pg95, verdict=f"target <= x{SEARCH_P95_LIMIT:.0f}: {ok}")
    return ratios


def bench_precis(services: dict[str, MemoryService], project: str, repeat: int) -> None:
    def regenerate(service: MemoryService) -> Callable[[], object]:
        manager = service.precis_manager
        path = Path(manager.compute(project).path)
        return lambda: write_atomically(path, manager.compute(project).text)

    times: dict[str, list[float]] = {e: [] for e in ENGINES}
    alternating({e: regenerate(s) for e, s in services.items()}, repeat, times)
    info = services["pg"].precis_manager.compute(project)
    print(f"\nMEMORY.md regeneration (render + atomic write; {info.bytes} bytes), median")
    line(
        "regenerate",
        statistics.median(times["sqlite"]),
        statistics.median(times["pg"]),
    )


# -- through servers ---------------------------------------------------------------------


@contextmanager
def server(
    data_dir: Path, socket_path: Path, config: Path, workers: int, url: str | None
) -> Iterator[Path]:
    """A real ``ltm-desktop serve`` process (on PostgreSQL when ``url``), stopped after."""
    command = [sys.executable, "-m", "ltm_desktop", "--data-dir", str(data_dir)]
    command += ["--config", str(config)] + ([] if url is None else ["--database-url", url])
    command += ["serve", "--socket", str(socket_path), "--workers", str(workers)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        print(f"  {'sqlite' if url is None else 'pg'}: {process.stdout.readline().strip()}")
        yield socket_path
    finally:
        process.terminate()
        process.wait(timeout=60)


def bench_adds(sockets: dict[str, Path], project: str, count: int, per_round: int) -> float:
    """Acknowledged ``memory.add`` of new texts, one client per server, rounds alternating;
    returns PostgreSQL's adds/s over SQLite's."""
    texts = list(generate(2 * count + 2, seed=int(time.time())))  # new texts, not dedups
    times: dict[str, list[float]] = {e: [] for e in ENGINES}
    with ExitStack() as stack:
        clients = {
            e: stack.enter_context(Client(path, client_name="bench")) for e, path in sockets.items()
        }
        for i, client in enumerate(clients.values()):  # the first add of a scope warms it
            client.memory_add(texts[i].content, project_id=project, title=texts[i].title)
        n = 2
        for r in range(count // per_round):
            for engine in ENGINES if r % 2 == 0 else ENGINES[::-1]:
                for _ in range(per_round):
                    started = time.perf_counter()
                    clients[engine].memory_add(
                        texts[n].content, project_id=project, title=texts[n].title
                    )
                    times[engine].append((time.perf_counter() - started) * 1000)
                    n += 1
    rates = {e: 1000 * len(t) / sum(t) for e, t in times.items()}
    print(f"\nsingle acknowledged adds over the socket ({len(times['pg'])} each, serve process)")
    ok = "ok" if rates["pg"] >= ADDS_FLOOR * rates["sqlite"] else "MISS"
    line("adds/s", rates["sqlite"], rates["pg"], "/s", f"target >= x{ADDS_FLOOR}: {ok}")
    line("add p50", statistics.median(times["sqlite"]), statistics.median(times["pg"]))
    line("add p95", pct(times["sqlite"], 0.95), pct(times["pg"], 0.95))
    return rates["pg"] / rates["sqlite"]


def raw_floor(url: str, folder: Path, count: int) -> None:
    """What each engine's bare single-row transaction costs (an INSERT and a COMMIT from
    this process, in a table of its own), alternating: the floor under an add. An add on
    PostgreSQL is about ten round trips to the server, on SQLite calls in the process."""
    import sqlite3

    import psycopg

    lite = sqlite3.connect(folder / "floor.sqlite", isolation_level=None)
    lite.execute("PRAGMA journal_mode = WAL")
    lite.execute("PRAGMA synchronous = FULL")  # as durable as a PostgreSQL commit
    lite.execute("CREATE TABLE floor (title TEXT, content TEXT)")
    with psycopg.connect(url, autocommit=True) as pg:
        pg.execute("CREATE TEMPORARY TABLE floor (title text, content text)")
        pg.autocommit = False

        def insert_sqlite() -> None:
            lite.execute("BEGIN IMMEDIATE")
            lite.execute("INSERT INTO floor VALUES (?, ?)", ("title", "content"))
            lite.execute("COMMIT")

        def insert_pg() -> None:
            with pg.transaction():
                pg.execute("INSERT INTO floor VALUES (%s, %s)", ("title", "content"))

        times: dict[str, list[float]] = {e: [] for e in ENGINES}
        alternating({"sqlite": insert_sqlite, "pg": insert_pg}, count, times)
        trip: dict[str, list[float]] = {e: [] for e in ENGINES}
        alternating(
            {
                "sqlite": lambda: lite.execute("SELECT 1").fetchone(),
                "pg": lambda: pg.execute("SELECT 1").fetchone(),
            },
            count,
            trip,
        )
        pg.rollback()
    lite.close()
    print("  baseline: a bare single-row transaction, and one SELECT 1, from this process")
    line(
        "raw insert + commit p50",
        statistics.median(times["sqlite"]),
        statistics.median(times["pg"]),
    )
    line("SELECT 1 p50", statistics.median(trip["sqlite"]), statistics.median(trip["pg"]))


def bench_clients(sockets: dict[str, Path], project: str, clients: int, requests: int) -> None:
    """``clients`` client processes searching at once (cache off), engines alternating."""
    print(f"\n{clients} concurrent clients (separate processes), searches/s, best of 2 rounds")
    for label, unique in (("query mix", False), ("never-seen titles", True)):
        best = dict.fromkeys(ENGINES, 0.0)
        for r in range(2):
            for engine in ENGINES if r % 2 == 0 else ENGINES[::-1]:
                rate = throughput(sockets[engine], project, clients, requests // clients, unique)
                best[engine] = max(best[engine], rate)
        line(f"{label} req/s", best["sqlite"], best["pg"], "/s")


# -- the run -----------------------------------------------------------------------------


def compare(
    server_url: str,
    *,
    memories: int,
    keep: str | None,
    keep_database: str | None,
    adds: int,
    repeat: int,
    clients: int,
    workers: int,
    seed: int,
) -> int:
    """The comparison; ``keep``: the SQLite data dir, kept; ``keep_database``: the name of
    a database on the server, kept (both reused when present)."""
    scratch = Path(tempfile.mkdtemp(prefix="ltm-pg-compare-"))
    dirs = {"sqlite": Path(keep) if keep else scratch / "sqlite", "pg": scratch / "pg"}
    with ExitStack() as stack:
        if keep_database:
            url = database_url(server_url, keep_database)
            _create_if_missing(server_url, keep_database)
        else:
            url = stack.enter_context(scratch_database(server_url, "core"))
        services = {
            "sqlite": open_bench_service(dirs["sqlite"], search_cache=False),
            "pg": open_pg_service(url, dirs["pg"], search_cache=False),
        }
        for service in services.values():
            stack.callback(service.close)
        pg_store = services["pg"].store
        print(
            f"ltm-desktop core benchmark, SQLite vs {pg_store.location} "
            f"(PostgreSQL {pg_store.server_version // 10000}): {memories:,} memories"  # type: ignore[attr-defined]
        )
        load(services, memories, seed)
        project = largest_project(services["sqlite"])
        counts = [dict((p.project_id, n) for p, n in s.projects()) for s in services.values()]
        print(f"target project {project}: {counts[0][project]:,} / {counts[1][project]:,} active")
        ratios = bench_search(services, project, repeat)
        bench_precis(services, project, repeat * 5)
        config = scratch / "config.toml"
        config.write_text('[search]\nembedder = "none"\ncache_entries = 0\n', encoding="utf-8")
        print("\nservers (words only, search cache off):")
        sockets = {
            "sqlite": stack.enter_context(
                server(dirs["sqlite"], scratch / "sqlite.sock", config, workers, None)
            ),
            "pg": stack.enter_context(
                server(dirs["pg"], scratch / "pg.sock", config, workers, url)
            ),
        }
        adds_ratio = bench_adds(sockets, project, adds, 50)
        raw_floor(url, scratch, 1_000)
        bench_clients(sockets, project, clients, 2_000)
        print(
            f"\nacceptance: search p95 PostgreSQL / SQLite x{min(ratios):.2f}-x{max(ratios):.2f} "
            f"(<= x{SEARCH_P95_LIMIT:.0f}: {'ok' if max(ratios) <= SEARCH_P95_LIMIT else 'MISS'}); "
            f"adds x{adds_ratio:.2f} (>= x{ADDS_FLOOR}: {'ok' if adds_ratio >= ADDS_FLOOR else 'MISS'})"
        )
    shutil.rmtree(scratch, ignore_errors=True)  # the kept SQLite data dir is not in it
    return 0


def _create_if_missing(server_url: str, name: str) -> None:
    import psycopg

    with psycopg.connect(server_url, autocommit=True) as admin:
        there = admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if there is None:
            admin.execute(f'CREATE DATABASE "{name}" TEMPLATE template0')

"""Core benchmark: a 100,000-memory database over 20 projects plus global.

Run on demand (not part of the test suite):

    .venv/bin/python bench/core_bench.py [--memories 100000] [--keep DIR]
    .venv/bin/python bench/core_bench.py --database-url postgresql://user@host:port/postgres
        [--keep DIR] [--keep-database NAME]

Every figure is printed next to a baseline measured in the same run on the same
machine, because these machines are shared and noisy: search against a raw
``bm25`` MATCH on the same FTS table, adds against raw single-row transactions
(at the store's synchronous setting, then again at the other one, for their ratio),
precis and list pages against the raw SELECT they are built on; semantic search
against search by words (backfill of the corpus's vectors first, then hybrid and
lexical searches alternating, then adds with and without embedding).

``--database-url`` names a PostgreSQL server instead: the run is then the engines'
comparison of ``bench/pg_compare.py`` (PostgreSQL beside SQLite on the same corpus,
every figure alternating between them), in a database made on that server for the run
and dropped after it (``--keep-database NAME``: that database, kept and reused).
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.corpus import SampleMemory, generate, sample_queries  # noqa: E402
from bench.dataset import PROJECTS, build, draft, largest_project, open_bench_service  # noqa: E402
from bench.hybrid_parts import bench_backfill, bench_embedding_adds, bench_hybrid_search  # noqa: E402
from ltm_desktop.core.memory_md.files import write_atomically  # noqa: E402
from ltm_desktop.core.records import GLOBAL_PROJECT_ID, ListQuery, MemoryDraft  # noqa: E402
from ltm_desktop.core.service import MemoryService  # noqa: E402
from ltm_desktop.core.settings.paths import DataPaths  # noqa: E402


def timings(fn: Callable[[], object], repeat: int) -> list[float]:
    """Milliseconds per call."""
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        out.append((time.perf_counter() - start) * 1000)
    return out


def fetch_all(conn: sqlite3.Connection, sql: str, params: tuple[object, ...]) -> list[Any]:
    return conn.execute(sql, params).fetchall()


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def row(label: str, ours: float, base: float, unit: str = "ms", target: str = "") -> None:
    ratio = ours / base if base else float("nan")
    print(
        f"  {label:<34} {ours:>9.3f} {unit:<5} baseline {base:>9.3f} {unit:<5} x{ratio:>6.2f}  {target}"
    )


def naive_match(query: str, kind: str) -> str:
    words = [w for w in "".join(c if c.isalnum() or c == "*" else " " for c in query).split()]
    if kind == "prefix":
        return " ".join(words)
    quoted = [f'"{w}"' for w in words]
    return " OR ".join(quoted) if kind == "natural" else " ".join(quoted)


def bench_search(
    service: MemoryService, raw: sqlite3.Connection, project: str, repeat: int
) -> None:
    print("\nagent search (limit 5, scoped to project + global, reinforcing), p50 / p99;")
    print("baseline: one raw bm25 MATCH of the words on the project's FTS table (no global)")
    project_pk = raw.execute("SELECT pk FROM projects WHERE project_id = ?", (project,)).fetchone()[
        0
    ]
    table = f"memory_fts_{project_pk}"  # the project's own FTS table, queried raw
    sql = f"SELECT rowid, bm25({table}) FROM {table} WHERE {table} MATCH ? ORDER BY rank LIMIT 5"
    targets = {"rare": 2.0, "two_words": 2.0, "prefix": 5.0, "natural": 5.0}
    for kind, queries in sample_queries().items():
        ours: list[float] = []
        base: list[float] = []
        hits = 0
        for query in queries:
            ours += timings(
                partial(service.search.query, project, query, limit=5, reinforce=True), repeat
            )
            hits += len(service.search.query(project, query, limit=5))
            match = naive_match(query, kind)
            base += timings(partial(fetch_all, raw, sql, (match,)), repeat)
        p50, p99 = statistics.median(ours), pct(ours, 0.99)
        verdict = "ok" if p50 < targets[kind] else "MISS"
        row(
            f"{kind} p50 ({hits} hits/{len(queries)} q)",
            p50,
            statistics.median(base),
            target=f"target <{targets[kind]} ms: {verdict}",
        )
        row(f"{kind} p99", p99, pct(base, 0.99))


def adds_per_second(
    service: MemoryService, raw: sqlite3.Connection, project: str, samples: list[SampleMemory]
) -> tuple[float, float, dict[str, int], int]:
    """(service adds/s, raw single-row inserts/s, outcomes, the WAL's peak size in bytes
    during the adds), both rates at the service's synchronous setting."""
    raw.execute(f"PRAGMA synchronous = {service.store.health().synchronous}")
    raw.execute("CREATE TABLE IF NOT EXISTS bench_raw (title TEXT, content TEXT)")
    start = time.perf_counter()
    for sample in samples:
        raw.execute("BEGIN IMMEDIATE")
        raw.execute("INSERT INTO bench_raw VALUES (?, ?)", (sample.title, sample.content))
        raw.execute("COMMIT")
    base = len(samples) / (time.perf_counter() - start)
    raw.execute("DROP TABLE bench_raw")
    statuses: dict[str, int] = {}
    wal = Path(f"{service.store.location}-wal")
    peak = 0
    start = time.perf_counter()
    for index, sample in enumerate(samples):
        status = service.add(project, draft(sample), "bench").status.value
        statuses[status] = statuses.get(status, 0) + 1
        if index % 50 == 0:
            peak = max(peak, wal.stat().st_size)
    return len(samples) / (time.perf_counter() - start), base, statuses, peak


def bench_adds(
    service: MemoryService,
    raw: sqlite3.Connection,
    project: str,
    count: int,
    seed: int,
    workdir: Path,
) -> None:
    chosen = service.store.health().synchronous
    other = "normal" if chosen == "full" else "full"
    print(
        f"\nsingle adds ({count}, each its own transaction with dedup, supersede check, audit, precis);"
    )
    print("baseline: raw single-row inserts at the same synchronous setting")
    measured: dict[str, float] = {}
    for setting in (chosen, other):
        samples = list(generate(count, seed=seed + int(time.time())))  # new texts, not dedups
        if setting == chosen:
            ours, base, statuses, peak = adds_per_second(service, raw, project, samples)
        else:
            second = open_bench_service(workdir, search_cache=False, synchronous=setting)
            try:
                ours, base, statuses, peak = adds_per_second(second, raw, project, samples)
            finally:
                second.close()
        measured[setting] = ours
        label = f"adds/s synchronous={setting.upper()}" + (" (chosen)" if setting == chosen else "")
        target = f"target >=1000: {'ok' if ours >= 1000 else 'MISS'}" if setting == chosen else ""
        print(
            f"  {label:<34} {ours:>9.0f}       baseline {base:>9.0f} raw inserts/s  x{ours / base:>6.2f}  {target}"
        )
        print(f"    outcomes: {statuses}; WAL peak {peak / 2**20:.1f} MiB")
    print(
        f"  {chosen.upper()} / {other.upper()} adds/s{'':<19} x{measured[chosen] / measured[other]:>6.2f}"
    )
    guard = service.store._guard  # type: ignore[attr-defined]
    check = statistics.median(timings(guard.look, 2_000))
    per_add = 1000 / measured[chosen]
    print(
        f"  {'file check before each write':<34} {check * 1000:>9.1f} us    one add {per_add * 1000:>9.0f} us    x{check / per_add:>6.3f}"
    )


def bench_global_adds(repeat: int, project_counts: tuple[int, ...] = (1, 100, 400)) -> None:
    """A global add regenerates every project's MEMORY.md; it must not wait for them.

    Each store is small and new (the cost measured is the fan-out, not the corpus); the
    baseline is a project add on the same store, timed in alternation with the global ones.
    """
    print(
        f"\nglobal add vs project add (median of {repeat} each, alternating; files fanned out in the background)"
    )
    for count in project_counts:
        workdir = Path(tempfile.mkdtemp(prefix="ltm-bench-global-"))
        service = open_bench_service(workdir)
        try:
            projects = [
                service.resolve_scope(cwd=f"/src/p{i}", register=True) for i in range(count)
            ]
            for i, project in enumerate(projects):
                service.add(project, MemoryDraft(content=f"fact of project {i} q{i}"), "bench")
            service.memory_md.flush(timeout=600)
            project_ms: list[float] = []
            global_ms: list[float] = []
            for i in range(repeat):
                for scope, out in ((projects[0], project_ms), (GLOBAL_PROJECT_ID, global_ms)):
                    draft = MemoryDraft(content=f"note {i} for {scope} z{i}")
                    start = time.perf_counter()
                    service.add(scope, draft, "bench")
                    out.append((time.perf_counter() - start) * 1000)
            settle = time.perf_counter()
            service.memory_md.flush(timeout=600)
            settle_ms = (time.perf_counter() - settle) * 1000
            ours, base = statistics.median(global_ms), statistics.median(project_ms)
            row(
                f"global add, {count} projects",
                ours,
                base,
                target=f"target <=2x: {'ok' if ours <= 2 * base else 'MISS'}; "
                f"files settled {settle_ms:.0f} ms after the last add",
            )
        finally:
            service.close()
            shutil.rmtree(workdir, ignore_errors=True)


def bench_precis(
    service: MemoryService, raw: sqlite3.Connection, project: str, repeat: int
) -> None:
    manager = service.precis_manager
    sql = (
        "SELECT m.title, m.content FROM memories m JOIN projects p ON p.pk = m.project_pk "
        "WHERE p.project_id IN (?, 'global') AND m.disabled = 0 "
        "ORDER BY m.importance DESC, m.updated_at DESC LIMIT 30"
    )
    base = timings(lambda: raw.execute(sql, (project,)).fetchall(), repeat)
    compute = timings(lambda: manager.compute(project), repeat)
    path = Path(manager.compute(project).path)

    def regenerate() -> None:
        write_atomically(path, manager.compute(project).text)

    full = timings(regenerate, repeat)
    info = manager.compute(project)
    print(f"\nprecis ({info.bytes} / {info.budget} bytes, truncated={info.truncated}), median")
    row("render (query + merge + render)", statistics.median(compute), statistics.median(base))
    row(
        "regenerate (render + atomic write)",
        statistics.median(full),
        statistics.median(base),
        target=f"target <5 ms: {'ok' if statistics.median(full) < 5 else 'MISS'}",
    )


def bench_list(service: MemoryService, raw: sqlite3.Connection, project: str, repeat: int) -> None:
    total = service.count_memories(project)
    sql = (
        "SELECT * FROM memories WHERE project_pk = (SELECT pk FROM projects WHERE project_id = ?) "
        "AND disabled = 0 ORDER BY importance DESC, updated_at DESC LIMIT 100 OFFSET ?"
    )
    print(f"\nlist pages of 100 (project with {total:,} active memories), median")
    for label, offset in (
        ("first page", 0),
        ("middle page", total // 2),
        ("last page", max(0, total - 100)),
    ):
        page = ListQuery(limit=100, offset=offset)
        ours = timings(partial(service.list_memories, project, page), repeat)
        base = timings(partial(fetch_all, raw, sql, (project, offset)), repeat)
        row(label, statistics.median(ours), statistics.median(base))
    ours = timings(lambda: service.count_memories(project), repeat)
    base = timings(
        lambda: raw.execute("SELECT count(*) FROM memories WHERE disabled = 0").fetchone(), repeat
    )
    row("count", statistics.median(ours), statistics.median(base))


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--adds", type=int, default=2_000)
    parser.add_argument("--repeat", type=int, default=30, help="timed runs per query")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--keep", metavar="DIR", help="build in DIR and keep it (reused when present)"
    )
    parser.add_argument(
        "--no-semantic", action="store_true", help="skip the backfill and the hybrid figures"
    )
    parser.add_argument(
        "--database-url",
        metavar="URL",
        help="a PostgreSQL server (a role that may create databases): compare the engines",
    )
    parser.add_argument(
        "--keep-database",
        metavar="NAME",
        help="with --database-url: the database NAME on that server, kept (reused when present)",
    )
    parser.add_argument("--clients", type=int, default=8, help="with --database-url")
    parser.add_argument("--workers", type=int, default=2, help="with --database-url: serve's")
    args = parser.parse_args()
    if args.database_url:
        from bench.pg_compare import compare

        return compare(
            args.database_url,
            memories=args.memories,
            keep=args.keep,
            keep_database=args.keep_database,
            adds=args.adds,
            repeat=args.repeat,
            clients=args.clients,
            workers=args.workers,
            seed=args.seed,
        )

    workdir = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="ltm-bench-"))
    paths = DataPaths(workdir)
    reuse = paths.db_path.exists()
    service = open_bench_service(workdir, search_cache=False)  # time the engine, not the cache
    raw = sqlite3.connect(paths.db_path, isolation_level=None)
    raw.execute("PRAGMA journal_mode = WAL")
    raw.execute("PRAGMA synchronous = NORMAL")
    try:
        print(
            f"ltm-desktop core benchmark: {args.memories:,} memories, {PROJECTS} projects + global"
        )
        print(
            f"sqlite {sqlite3.sqlite_version}, python {sys.version.split()[0]}, data in {workdir}"
        )
        if reuse:
            print("reusing the existing database")
        else:
            raw_bytes, seconds = build(service, args.memories, args.seed)
            raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            size = paths.db_path.stat().st_size
            print(
                f"\nbuild: {args.memories:,} imported in {seconds:.1f} s ({args.memories / seconds:,.0f}/s, batches of 2,000)"
            )
            print(
                f"  {'database size':<34} {size / 1e6:>9.1f} MB    corpus text {raw_bytes / 1e6:>9.1f} MB    x{size / raw_bytes:>6.2f}"
            )
        project = largest_project(service)
        counts = {p.project_id: n for p, n in service.projects()}
        print(
            f"target project {project}: {counts[project]:,} active; global: {counts[GLOBAL_PROJECT_ID]:,}"
        )
        bench_search(service, raw, project, args.repeat)
        bench_precis(service, raw, project, args.repeat * 5)
        bench_list(service, raw, project, args.repeat)
        bench_adds(service, raw, project, args.adds, args.seed, workdir)
        if not args.no_semantic:
            hybrid = bench_backfill(workdir)
            try:
                bench_hybrid_search(service, hybrid, project, args.repeat)
                bench_embedding_adds(hybrid, workdir, args.adds // 2, args.seed)
            finally:
                hybrid.close()
        bench_global_adds(max(args.repeat, 30))
    finally:
        raw.close()
        service.close()
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""core_bench's semantic-search parts: backfill of the corpus, hybrid against lexical
search per query class, adds with and without embedding; each pair in the same run."""

from __future__ import annotations

import resource
import shutil
import sqlite3
import statistics
import threading
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from bench.corpus import generate, sample_queries
from bench.dataset import draft, largest_project, open_bench_service
from bench.retrieval_set import QUERIES
from ltm_desktop.core.records import IndexStatus
from ltm_desktop.core.service import MemoryService
from ltm_desktop.embedding.static import StaticEmbedder


def rss_mib() -> float:
    """This process's peak resident memory so far (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def timed(fn: Callable[[], object], repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        out.append((time.perf_counter() - start) * 1000)
    return out


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def bench_backfill(workdir: Path) -> MemoryService:
    """Fill in the vectors of every memory (static model); returns the static service."""
    before = rss_mib()
    started = time.perf_counter()
    service = open_bench_service(workdir, search_cache=False, embedder=StaticEmbedder())
    status = service.search.index_status()
    print(f"\nbackfill (static model, {status.memories:,} active memories, batches of 256)")
    filled = service.backfill.run_once()
    seconds = time.perf_counter() - started
    status = service.search.index_status()
    print(
        f"  {'filled':<34} {filled:>9,}       {seconds:>9.1f} s     "
        f"{filled / seconds if seconds else 0:>9,.0f} memories/s"
    )
    print(
        f"  {'with vectors / active':<34} {status.with_vectors:>9,} / {status.memories:,}; "
        f"peak RSS {before:.0f} -> {rss_mib():.0f} MiB"
    )
    return service


def bench_hybrid_search(
    lexical: MemoryService, hybrid: MemoryService, project: str, repeat: int
) -> None:
    print("\nsearch by words (none) and hybrid (static), alternating, limit 5, p50 / p95")
    print("target: hybrid <= 1.5x words at p50 and p95, per query class")
    hybrid.search.query(project, "warm the vectors of the scope up")  # loads the scope's arrays
    classes = dict(sample_queries())
    # Not a class of the target: questions no memory answers word for word, so the search by
    # meaning runs (it is skipped when 5 memories hold every word: it could only reorder them).
    classes["meaning*"] = [query for query, _ in QUERIES["paraphrase"][:10]]
    for kind, queries in classes.items():
        ours: list[float] = []
        base: list[float] = []
        for query in queries:
            for _ in range(repeat):
                base += timed(partial(lexical.search.query, project, query, limit=5), 1)
                ours += timed(partial(hybrid.search.query, project, query, limit=5), 1)
        p50, b50 = statistics.median(ours), statistics.median(base)
        p95, b95 = pct(ours, 0.95), pct(base, 0.95)
        ok = p50 <= 1.5 * b50 and p95 <= 1.5 * b95 or kind.endswith("*")
        print(
            f"  {kind:<12} hybrid {p50:6.2f} / {p95:6.2f} ms   words {b50:6.2f} / {b95:6.2f} ms"
            f"   x{p50 / b50:4.2f} / x{p95 / b95:4.2f}  {'ok' if ok else 'MISS'}"
        )
    memory = hybrid.store._vectors.memory_bytes()  # type: ignore[attr-defined]
    print(f"  vectors held in memory for the scopes searched: {memory / 2**20:.1f} MiB")


def copy_data_dir(source: Path, target: Path) -> None:
    """A consistent copy of the database (SQLite's backup), for a second service."""
    target.mkdir(mode=0o700, parents=True, exist_ok=True)
    src = sqlite3.connect(source / "ltm.sqlite")
    dest = sqlite3.connect(target / "ltm.sqlite")
    try:
        src.backup(dest)
    finally:
        dest.close()
        src.close()


def bench_embedding_adds(hybrid: MemoryService, workdir: Path, count: int, seed: int) -> None:
    """Adds with embedding (static, the backfill running as in the app and ``serve``: a new
    memory's vector is made by it, batched, off the writer's path) against adds to a copy
    of the database with no embedder at all, alternating batches of 10."""
    print(f"\nadds with and without embedding ({count} each, alternating batches of 10)")
    print('without: a copy of the database, [search] embedder = "none"')
    copy = workdir.with_name(workdir.name + "-words-only")
    shutil.rmtree(copy, ignore_errors=True)
    copy_data_dir(workdir, copy)
    lexical = open_bench_service(copy, search_cache=False)
    project = largest_project(hybrid)
    samples = list(generate(2 * count, seed=seed + int(time.time())))
    spent = {"none": 0.0, "static": 0.0}
    caught_up = threading.Event()

    def note(status: IndexStatus) -> None:
        if status.complete:
            caught_up.set()

    hybrid.backfill.subscribe(note)
    if not hybrid.backfill.active:
        hybrid.backfill.start()
    try:
        for start in range(0, 2 * count, 20):
            for offset, (name, service) in enumerate((("none", lexical), ("static", hybrid))):
                batch = samples[start + 10 * offset : start + 10 * (offset + 1)]
                begun = time.perf_counter()
                for sample in batch:
                    service.add(project, draft(sample), "bench")
                spent[name] += time.perf_counter() - begun
        last = time.perf_counter()
        caught_up.clear()
        hybrid.backfill.wake()
        caught_up.wait(120)
        behind = (time.perf_counter() - last) * 1000
    finally:
        lexical.close()
        shutil.rmtree(copy, ignore_errors=True)
    rate = {name: count / seconds for name, seconds in spent.items()}
    ratio = rate["static"] / rate["none"]
    print(
        f"  adds/s with embedding {rate['static']:>7.0f}   without {rate['none']:>7.0f}"
        f"   x{ratio:4.2f}  target >= 0.80: {'ok' if ratio >= 0.8 else 'MISS'}"
    )
    print(f"  every new memory had its vector {behind:.0f} ms after the last add")

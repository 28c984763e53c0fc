"""Backfill benchmark: vectors for memories stored without one, at 10k, 100k and 1M.

Run on demand (not part of the test suite):

    .venv/bin/python bench/scale/backfill_bench.py [--sizes 10000,100000,1000000] [--legacy 100000]

A seed of ``--seed-size`` memories is imported the normal way (service.import_memories:
token sets, full-text index, audit); each size is a copy of it grown by SQL alone, the
seed's rows copied with new ids and signatures (and token sets) but no vector and no
full-text rows, which the backfill never reads. At 1M the import takes many minutes;
this load takes seconds, and the texts embedded are the seed's, so every size embeds
the same mix of texts.

For each size: the backfill's rate (the static model, as the app runs it) by the wall
clock and per CPU second of this process (the machine's other load left out), the rate
over the pass's last tenth against its first (1.0: linear), the writer lock's holds (what
an agent's write may wait: 99th percentile and longest), and the "nothing left" pass
once done. Baselines in the same run: the bare model embedding the seed's texts in batches
of 256 (the floor: the backfill cannot beat its embedder), and with ``--legacy`` the
code before the cursor (one rescan of what was left per batch, a count of every memory
per batch) at the sizes listed (it was quadratic: an hour at 1M).
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.dataset import build, open_bench_service  # noqa: E402
from bench.scale.backfill_legacy import legacy_backfill  # noqa: E402
from ltm_desktop.core.records import Memory  # noqa: E402
from ltm_desktop.core.service import MemoryService  # noqa: E402
from ltm_desktop.core.writing import embedding_text  # noqa: E402
from ltm_desktop.embedding.static import StaticEmbedder  # noqa: E402

COPY = """INSERT INTO memories (id, project_pk, title, content, category, importance, tags,
    signature, created_at, updated_at, source, token_count)
    SELECT id || '_' || ?1, project_pk, title, content, category, importance, tags,
    signature || '_' || ?1, created_at, updated_at, source, token_count
    FROM memories WHERE pk <= ?2 ORDER BY pk LIMIT ?3"""
INDEX = """INSERT INTO memory_index (memory_pk, project_pk, seq, token_bits)
    SELECT m.pk, m.project_pk, ?2, s.token_bits FROM memories AS m
    JOIN memory_index AS s ON s.memory_pk = m.pk - ?3 * ?4 WHERE m.pk > ?1"""


def seed(folder: Path, size: int) -> None:
    """The seed database in ``folder``, imported as the app imports."""
    service = open_bench_service(folder, search_cache=False)
    try:
        _, seconds = build(service, size)
    finally:
        service.close()
    print(f"seed: {size:,} memories imported in {seconds:.1f} s ({size / seconds:,.0f}/s)")


def grown(seed_dir: Path, target: Path, size: int) -> float:
    """A copy of the seed grown to ``size`` memories by SQL; returns the seconds taken."""
    started = time.perf_counter()
    shutil.copytree(seed_dir, target, ignore=shutil.ignore_patterns("*.lock"))
    conn = sqlite3.connect(target / "ltm.sqlite", isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = OFF")
        (base, rows) = conn.execute("SELECT max(pk), count(*) FROM memories").fetchone()
        assert base == rows, "the seed's pks are 1..n: a copy's are n * copy + 1.."
        (seq,) = conn.execute("SELECT max(seq) + 1 FROM memory_index").fetchone()
        copy = 1
        while base * copy < size:
            conn.execute("BEGIN")
            start = base * copy
            conn.execute(COPY, (copy, base, min(base, size - start)))
            conn.execute(INDEX, (start, seq, copy, base))
            conn.execute("COMMIT")
            copy += 1
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        (count,) = conn.execute("SELECT count(*) FROM memories").fetchone()
        assert count == size, (count, size)
    finally:
        conn.close()
    return time.perf_counter() - started


def bare_embedding(seed_dir: Path) -> float:
    """Texts per CPU second of the model alone on the seed's texts, in batches of 256."""
    service = open_bench_service(seed_dir, search_cache=False)
    try:
        texts = [embedding_text(memory) for memory in every_memory(service)]
    finally:
        service.close()
    embedder = StaticEmbedder()
    embedder.embed(texts[:256])  # the model loaded
    started = time.process_time()
    for start in range(0, len(texts), 256):
        embedder.embed(texts[start : start + 256])
    return len(texts) / (time.process_time() - started)


def every_memory(service: MemoryService) -> Iterator[Memory]:
    """The seed's memories (none has a vector of a model that does not exist)."""
    after = ""
    while batch := service.store.unindexed("no-such-model", after, 1024):
        yield from batch
        after = batch[-1].id


@contextmanager
def held_lock(service: MemoryService, holds: list[float]) -> Iterator[None]:
    """Times each of the store's write transactions (the writer lock is held around one)."""
    store: Any = service.store
    write = store.write

    @contextmanager
    def timed_write() -> Iterator[Any]:
        started = time.perf_counter()
        with write() as txn:
            yield txn
        holds.append(time.perf_counter() - started)

    store.write = timed_write
    try:
        yield
    finally:
        store.write = write


def run(folder: Path, legacy: bool) -> dict[str, float]:
    """One backfill of the database in ``folder``: its figures, by the wall clock and by
    this process's CPU time (a shared machine's other load stays out of the second)."""
    embedder = StaticEmbedder()
    service = open_bench_service(folder, search_cache=False, embedder=embedder)
    marks: list[tuple[int, float]] = []  # (memories with a vector, CPU seconds) per batch
    service.backfill.subscribe(lambda s: marks.append((s.with_vectors, time.process_time())))
    try:
        embedder.embed(["load the model"])
        holds: list[float] = []
        with held_lock(service, holds):
            started, cpu = time.perf_counter(), time.process_time()
            if legacy:
                filled = legacy_backfill(service, lambda n: marks.append((n, time.process_time())))
            else:
                filled = service.backfill.run_once()
            seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
        done, total = service.store.index_progress(embedder.model)
        assert done == total, (done, total)
        idle = []
        for _ in range(5):
            started = time.perf_counter()
            assert (legacy_backfill(service) if legacy else service.backfill.run_once()) == 0
            idle.append((time.perf_counter() - started) * 1000)
    finally:
        service.close()
    holds.sort()
    return {
        "filled": filled,
        "seconds": seconds,
        "rate": filled / seconds,
        "cpu_rate": filled / cpu,
        "first_last": first_to_last(marks, total),
        "hold_max": holds[-1] * 1000 if holds else 0.0,
        "hold_p99": holds[int(0.99 * (len(holds) - 1))] * 1000 if holds else 0.0,
        "idle_ms": statistics.median(idle),
    }


def first_to_last(marks: list[tuple[int, float]], total: int) -> float:
    """The rate per CPU second over the pass's last tenth over its first tenth (1.0:
    linear; the old code slowed as the pass went on). NaN without progress marks."""
    marks = [mark for mark in marks if mark[0] < total]  # the last one is a count
    if len(marks) < 20:
        return float("nan")
    tenth = len(marks) // 10
    first, last = marks[: tenth + 1], marks[-tenth - 1 :]
    first_rate = (first[-1][0] - first[0][0]) / max(first[-1][1] - first[0][1], 1e-9)
    last_rate = (last[-1][0] - last[0][0]) / max(last[-1][1] - last[0][1], 1e-9)
    return last_rate / first_rate


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--legacy", default="", help="sizes to run the old code at too")
    parser.add_argument("--seed-size", type=int, default=10_000)
    parser.add_argument("--keep", metavar="DIR", help="the seed in DIR, reused when present")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    legacy = {int(s) for s in args.legacy.split(",") if s}
    workdir = Path(tempfile.mkdtemp(prefix="ltm-backfill-"))
    try:
        seed_dir = Path(args.keep) if args.keep else workdir / "seed"
        if not (seed_dir / "ltm.sqlite").exists():
            seed(seed_dir, args.seed_size)
        floor = bare_embedding(seed_dir)
        print(f"bare model, the seed's texts in batches of 256: {floor:,.0f} texts per CPU s\n")
        print(
            f"{'memories':>10} {'code':<7} {'load s':>7} {'backfill s':>10} {'per s':>7} "
            f"{'per CPU s':>9} {'of bare':>7} {'last/first':>10} {'lock p99':>9} "
            f"{'lock max':>9} {'nothing left':>12}"
        )
        for size in sizes:
            for mode in ("legacy", "cursor") if size in legacy else ("cursor",):
                folder = workdir / f"{mode}-{size}"
                load = grown(seed_dir, folder, size)
                r = run(folder, mode == "legacy")
                shutil.rmtree(folder, ignore_errors=True)
                print(
                    f"{size:>10,} {mode:<7} {load:>7.1f} {r['seconds']:>10.1f} "
                    f"{r['rate']:>7,.0f} {r['cpu_rate']:>9,.0f} {r['cpu_rate'] / floor:>7.0%} "
                    f"{r['first_last']:>10.2f} {r['hold_p99']:>6.1f} ms {r['hold_max']:>6.1f} ms "
                    f"{r['idle_ms']:>9.2f} ms",
                    flush=True,
                )
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

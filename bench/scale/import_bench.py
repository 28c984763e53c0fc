"""Import benchmark: ``MemoryService.import_memories`` against a bare sqlite3 + FTS5 load.

Run on demand (not part of the test suite):

    .venv/bin/python bench/scale/import_bench.py [--sizes 10000 100000] [--batch 2000]

The bench corpus (``bench/corpus.py``) is generated first and spread over 20 projects
plus global as ``bench/dataset.py`` spreads it; then, at each size, into a new data dir:
our import (screening, dedup by signature, audit chain, full-text index, token sets),
one ``import_memories`` call (one transaction) per batch of a scope, against the floor
measured in the same run on the same rows: a bare sqlite3 file in WAL with one table of
the rows and an FTS5 table of their title, content and tags, loaded with ``executemany``
and a commit per batch. The target (issue #32): ours at least 25 % of the floor's rate.
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.corpus import SampleMemory, generate, project_paths  # noqa: E402
from bench.dataset import GLOBAL_SHARE, PROJECTS, draft, open_bench_service  # noqa: E402
from ltm_desktop.core.records import GLOBAL_PROJECT_ID, MemoryDraft  # noqa: E402

TARGET = 0.25  # our rate / the bare load's rate


def batches(count: int, size: int, seed: int = 0) -> list[tuple[int, list[SampleMemory]]]:
    """(scope number, samples) in the order they are imported; scope 0 is global."""
    rng = random.Random(seed)
    weights = [1 / (i + 1) ** 0.5 for i in range(PROJECTS)]
    pending: dict[int, list[SampleMemory]] = {}
    order: list[tuple[int, list[SampleMemory]]] = []
    for sample in generate(count, seed=seed):
        scope = 0 if rng.random() < GLOBAL_SHARE else rng.choices(range(PROJECTS), weights)[0] + 1
        batch = pending.setdefault(scope, [])
        batch.append(sample)
        if len(batch) >= size:
            order.append((scope, pending.pop(scope)))
    order += sorted(pending.items())
    return order


def ours(work: Path, plan: list[tuple[int, list[MemoryDraft]]]) -> float:
    service = open_bench_service(work / "ours")
    ids = [GLOBAL_PROJECT_ID]
    for path in project_paths(PROJECTS, seed=0):
        ids.append(service.resolve_scope(cwd=path, register=True))
    started = time.perf_counter()
    for scope, drafts in plan:
        service.import_memories(ids[scope], drafts, "bench")
    seconds = time.perf_counter() - started
    service.close()
    return seconds


def bare(work: Path, plan: list[tuple[int, list[SampleMemory]]]) -> float:
    conn = sqlite3.connect(work / "bare.sqlite", isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute(
        "CREATE TABLE memories (pk INTEGER PRIMARY KEY, project TEXT, title TEXT, "
        "content TEXT, tags TEXT, category TEXT, importance INTEGER)"
    )
    conn.execute("CREATE VIRTUAL TABLE memories_fts USING fts5(title, content, tags)")
    started = time.perf_counter()
    pk = 0
    for scope, samples in plan:
        rows = []
        for sample in samples:
            pk += 1
            rows.append(
                (
                    pk,
                    str(scope),
                    sample.title,
                    sample.content,
                    " ".join(sample.tags),
                    sample.category,
                    sample.importance,
                )
            )
        conn.execute("BEGIN")
        conn.executemany("INSERT INTO memories VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
        conn.executemany(
            "INSERT INTO memories_fts (rowid, title, content, tags) VALUES (?, ?, ?, ?)",
            [(r[0], r[2], r[3], r[4]) for r in rows],
        )
        conn.execute("COMMIT")
    seconds = time.perf_counter() - started
    conn.close()
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--batch", type=int, default=2_000)
    args = parser.parse_args()
    print(
        f"{'memories':>10} {'ours':>9} {'per s':>9} {'bare load':>10} {'per s':>9} "
        f"{'ours/bare':>10}  target >= {TARGET:.0%}"
    )
    for size in args.sizes:
        plan = batches(size, args.batch)
        drafts = [(scope, [draft(s) for s in samples]) for scope, samples in plan]
        with tempfile.TemporaryDirectory(prefix="ltm-import-bench-") as tmp:
            floor = bare(Path(tmp), plan)
            took = ours(Path(tmp), drafts)
        ratio = floor / took
        print(
            f"{size:>10,} {took:8.1f}s {size / took:9,.0f} {floor:9.2f}s {size / floor:9,.0f} "
            f"{ratio:9.1%}  {'ok' if ratio >= TARGET else 'MISS'}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

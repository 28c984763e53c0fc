"""Privacy benchmark: what the secrets rule, safe rendering, verify and erase cost.

Run on demand (not part of the test suite):

    .venv/bin/python bench/privacy_bench.py [--memories 20000]

Every figure is printed next to a baseline measured in the same run (shared, noisy
machines): adds with ``[privacy] secrets = "refuse"`` against ``"allow"`` (no scan),
alternating; MEMORY.md rendered safely against the plain ``## title`` join it replaced;
``verify`` against SQLite's own integrity check on the same file; erasing a memory
against removing one (both in the largest scope).
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.corpus import generate  # noqa: E402
from bench.dataset import build, draft, largest_project, open_bench_service  # noqa: E402
from ltm_desktop.core.memory_md.precis import render_precis  # noqa: E402
from ltm_desktop.core.records import Memory, MemoryDraft  # noqa: E402
from ltm_desktop.core.service import MemoryService  # noqa: E402
from ltm_desktop.core.settings.config import Settings  # noqa: E402
from ltm_desktop.core.settings.paths import DataPaths  # noqa: E402
from ltm_desktop.store import open_store  # noqa: E402


def ms(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


def row(label: str, ours: float, base: float, unit: str = "ms") -> None:
    print(f"{label:<44} {ours:10.3f} {unit}   baseline {base:10.3f} {unit}   x{ours / base:5.2f}")


def service_with(data_dir: Path, secrets: str) -> MemoryService:
    paths = DataPaths(data_dir)
    store = open_store(paths.db_path, paths.backup_dir)
    service = MemoryService(store, paths, Settings(privacy_secrets=secrets))
    service.start()
    return service


def bench_adds(workdir: Path, rounds: int, per_round: int) -> None:
    refusing = service_with(workdir / "refuse", "refuse")
    allowing = service_with(workdir / "allow", "allow")
    samples = [draft(s) for s in generate(rounds * per_round * 2, seed=7)]
    times: dict[str, list[float]] = {"refuse": [], "allow": []}
    for r in range(rounds):
        for name, service in (("refuse", refusing), ("allow", allowing)):
            chunk = samples[(2 * r + (name == "allow")) * per_round :][:per_round]
            for one in chunk:
                times[name].append(ms(partial(service.add, "global", one, "bench")))
    refuse, allow = statistics.median(times["refuse"]), statistics.median(times["allow"])
    row("add (secrets refuse vs allow), median", refuse, allow)
    refusing.close()
    allowing.close()


def plain(memories: list[Memory]) -> str:
    return "\n\n".join(f"## {m.title}\n\n{m.content}" for m in memories)


def bench_render(service: MemoryService, project: str) -> None:
    memories = service.precis_manager.candidates(project)
    safe = [ms(lambda: render_precis(memories, 5120)) for _ in range(300)]
    base = [ms(lambda: plain(memories)) for _ in range(300)]
    row(
        f"MEMORY.md render ({len(memories)} memories)",
        statistics.median(safe),
        statistics.median(base),
    )


def bench_verify(service: MemoryService) -> None:
    db = service.store.location
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    base_full = ms(lambda: conn.execute("PRAGMA integrity_check").fetchall())
    full = ms(lambda: service.integrity.verify())
    base_quick = ms(lambda: conn.execute("PRAGMA quick_check").fetchall())
    quick = ms(lambda: service.integrity.verify(quick=True))
    conn.close()
    row("verify (full) vs PRAGMA integrity_check", full, base_full)
    row("verify --quick vs PRAGMA quick_check", quick, base_quick)


def bench_erase(service: MemoryService, project: str, count: int) -> None:
    added = [
        service.add(project, MemoryDraft(f"Erase bench note {i} token{i}x{i}"), "bench").memory
        for i in range(2 * count)
    ]
    removes = [ms(partial(service.remove, m.id, "bench")) for m in added[:count]]
    for m in added[count:]:
        service.remove(m.id, "bench")
    erased = [service.eraser.erase(m.id, "bench") for m in added[count : count + 1]]
    erases = [ms(partial(service.eraser.erase, m.id, "bench")) for m in added[count + 1 :]]
    print(f"  the WAL was truncated after an erase: {erased[0].scrubbed}")
    row(
        f"erase one vs remove one ({count} each)",
        statistics.median(erases),
        statistics.median(removes),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--memories", type=int, default=20_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ltm-privacy-bench-") as temp:
        workdir = Path(temp)
        bench_adds(workdir, rounds=5, per_round=100)
        service = open_bench_service(workdir / "corpus")
        _, seconds = build(service, args.memories)
        print(f"built {args.memories:,} memories in {seconds:.1f} s")
        project = largest_project(service)
        bench_render(service, project)
        bench_verify(service)
        bench_erase(service, project, 20)
        service.close()


if __name__ == "__main__":
    main()

"""The benchmark database: 100,000 realistic memories over 20 projects plus global."""

from __future__ import annotations

import random
import shutil
import time
from pathlib import Path

from bench.corpus import SampleMemory, generate, project_paths
from ltm_desktop.core.records import GLOBAL_PROJECT_ID, MemoryDraft
from ltm_desktop.core.seams import Embedder
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.paths import DataPaths
from ltm_desktop.store import open_store
from ltm_desktop.store.connection import SYNCHRONOUS

PROJECTS = 20
GLOBAL_SHARE = 0.05
BATCH = 2_000


def draft(sample: SampleMemory) -> MemoryDraft:
    return MemoryDraft(
        content=sample.content,
        title=sample.title,
        category=sample.category,
        importance=sample.importance,
        tags=sample.tags,
    )


def open_bench_service(
    data_dir: Path,
    *,
    search_cache: bool = True,
    synchronous: str = SYNCHRONOUS,
    embedder: Embedder | None = None,
) -> MemoryService:
    """A service on ``data_dir``; ``search_cache=False`` measures the search engine itself.
    Without ``embedder`` it searches by words only (``[search] embedder = "none"``)."""
    paths = DataPaths(data_dir)
    store = open_store(paths.db_path, paths.backup_dir, synchronous=synchronous)
    service = MemoryService(
        store, paths, search_cache_size=256 if search_cache else 0, embedder=embedder
    )
    service.start()
    return service


def build(service: MemoryService, count: int, seed: int = 0) -> tuple[int, float]:
    """Import ``count`` memories (projects weighted 1/sqrt(rank)); returns (text bytes, seconds)."""
    ids = [service.resolve_scope(cwd=p, register=True) for p in project_paths(PROJECTS, seed=seed)]
    weights = [1 / (i + 1) ** 0.5 for i in range(PROJECTS)]
    rng = random.Random(seed)
    batches: dict[str, list[MemoryDraft]] = {pid: [] for pid in [*ids, GLOBAL_PROJECT_ID]}
    raw_bytes = 0
    start = time.perf_counter()
    for sample in generate(count, seed=seed):
        raw_bytes += len(sample.title.encode()) + len(sample.content.encode())
        scope = GLOBAL_PROJECT_ID if rng.random() < GLOBAL_SHARE else rng.choices(ids, weights)[0]
        batch = batches[scope]
        batch.append(draft(sample))
        if len(batch) >= BATCH:
            service.import_memories(scope, batch, "bench")
            batch.clear()
    for scope, batch in batches.items():
        if batch:
            service.import_memories(scope, batch, "bench")
    return raw_bytes, time.perf_counter() - start


def largest_project(service: MemoryService) -> str:
    """The project with the most active memories (what the benchmarks search in)."""
    counted = [
        (n, p.project_id) for p, n in service.projects() if p.project_id != GLOBAL_PROJECT_ID
    ]
    return max(counted)[1]


def prepared_service(keep: str | None, workdir: Path, memories: int) -> MemoryService:
    """A service on ``workdir`` holding the bench corpus: a copy of ``keep`` when it has
    one, else built now (and saved to ``keep`` for the next run)."""
    if keep and (Path(keep) / "ltm.sqlite").exists():
        shutil.copytree(keep, workdir, ignore=shutil.ignore_patterns("*.lock"))
        print(f"working on a copy of {keep}")
    service = open_bench_service(workdir)
    if len(service.projects()) <= 1:
        _, seconds = build(service, memories)
        print(f"built {memories:,} memories in {seconds:.1f} s")
        if keep:
            service.close()
            shutil.copytree(workdir, keep, dirs_exist_ok=True)
            service = open_bench_service(workdir)
    return service

"""File-aware memories: what the stale list's file check and a ``file:`` search cost.

Run on demand (not part of the test suite):

    .venv/bin/python bench/files_bench.py [--memories 20000] [--named 2000]

One project with ``--memories`` memories, ``--named`` of them naming two files each in a
temporary project directory (a tenth of the files deleted). Baselines measured in the same
run: the stale list by age alone (``store.stale_memories``, what the list cost before) and
a plain word search. The first stale list of a minute checks the files (a ``stat`` each);
the next ones reuse that check.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ltm_desktop.core.records import MemoryDraft  # noqa: E402
from ltm_desktop.core.service import MemoryService  # noqa: E402
from ltm_desktop.core.settings.paths import DataPaths  # noqa: E402
from ltm_desktop.store import open_store  # noqa: E402


class Clock:
    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


def median_ms(fn: Callable[[], object], repeat: int) -> float:
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        out.append((time.perf_counter() - start) * 1000)
    return statistics.median(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=20_000)
    parser.add_argument("--named", type=int, default=2_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ltm-files-bench-") as tmp:
        root = Path(tmp) / "project"
        (root / "src").mkdir(parents=True)
        clock = Clock()
        paths = DataPaths(Path(tmp) / "data")
        paths.data_dir.mkdir()
        store = open_store(paths.db_path, paths.backup_dir)
        # no search cache: every search runs (the file filter is never cached)
        service = MemoryService(store, paths, clock=clock, search_cache_size=0)
        project = service.resolve_scope(cwd=str(root), register=True)
        drafts = []
        for i in range(args.memories):
            files: list[str] = []
            if i < args.named:
                files = [f"src/m{i}.py", f"src/shared{i % 50}.py"]
                for name in files:
                    (root / name).touch()
            drafts.append(
                MemoryDraft(f"memory {i} about module m{i} and topic {i % 97}", files=files)
            )
        service.import_memories(project, drafts, "bench")
        for i in range(0, args.named, 10):
            (root / f"src/m{i}.py").unlink()

        def first_check() -> object:
            clock.now += 61  # due again: every call checks the files
            return service.stale.candidates(project)

        cutoff = clock.now - service.settings.stale_age_days * 86_400
        age_only = median_ms(
            lambda: service.store.stale_memories(project, 1, cutoff, clock.now), 20
        )
        checking = median_ms(first_check, 10)
        cached = median_ms(lambda: service.stale.candidates(project), 20)
        found = len(service.stale.candidates(project))
        words = median_ms(lambda: service.search.query(project, "module topic", limit=20), 20)
        by_file = median_ms(
            lambda: service.search.query(project, "file:src/shared7.py", limit=20), 20
        )
        both = median_ms(lambda: service.search.query(project, "module file:src/shared7.py"), 20)
        service.close()
    print(f"{args.memories:,} memories, {args.named:,} naming 2 files, {found} stale by a file")
    print(f"stale list, files checked     {checking:8.2f} ms   (age only: {age_only:.2f} ms)")
    print(
        f"stale list, check reused      {cached:8.2f} ms   (x{cached / age_only:.2f} of age only)"
    )
    print(f"search file:PATH              {by_file:8.2f} ms   (word search: {words:.2f} ms)")
    print(f"search words + file:PATH      {both:8.2f} ms   (x{both / words:.2f} of word search)")


if __name__ == "__main__":
    main()

"""Export / import / backup benchmark on the 100k bench corpus.

Run on demand (not part of the test suite):

    .venv/bin/python bench/export_bench.py [--memories 100000] [--keep DIR]

Each step runs the real console script in its own process and reports its wall time,
memories per second and peak RSS (the child's ``ru_maxrss``): ``export`` (JSONL and
Markdown), ``import`` of the JSONL into an empty data dir (one transaction), and
``backup``. Then the Python heap's peak during an in-process JSONL export (tracemalloc):
a streamed export's should not grow with the corpus (compare with ``--memories 10000``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.dataset import build, open_bench_service  # noqa: E402
from ltm_desktop.core.transfer.exporting import write_jsonl  # noqa: E402

EXECUTABLE = Path(sys.executable).with_name("ltm-desktop")


def run(args: list[str]) -> tuple[float, float]:
    """(seconds, peak RSS in MiB) of one child process."""
    start = time.perf_counter()
    child = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    error = child.stderr.read().decode() if child.stderr else ""
    if child.stderr:
        child.stderr.close()
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed: {error}")
    return seconds, usage.ru_maxrss / 1024  # Linux: KiB


def heap_peak(data: Path) -> float:
    """MiB of Python objects alive at once while exporting everything (RSS also counts
    SQLite's page cache and the memory-mapped database, which do not grow with the export)."""
    service = open_bench_service(data)
    try:
        scopes = [project for project, _ in service.projects()]
        with open(os.devnull, "w", encoding="utf-8") as sink:
            tracemalloc.start()
            write_jsonl(service, scopes, sink, app_version="bench")
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
    finally:
        service.close()
    return peak / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--keep", metavar="DIR", help="build the database in DIR once, reuse it")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="ltm-export-bench-"))
    data = work / "data"
    try:
        if args.keep and (Path(args.keep) / "ltm.sqlite").exists():
            shutil.copytree(args.keep, data, ignore=shutil.ignore_patterns("*.lock"))
        else:
            service = open_bench_service(data)
            try:
                build(service, args.memories)
                service.memory_md.flush()
            finally:
                service.close()
            if args.keep:
                shutil.copytree(data, args.keep, dirs_exist_ok=True)
        service = open_bench_service(data)
        count = sum(n for _, n in service.projects())
        service.close()
        db_mib = (data / "ltm.sqlite").stat().st_size / 2**20
        print(f"{count:,} memories, database {db_mib:.0f} MiB")
        base = [str(EXECUTABLE), "--data-dir"]
        steps = [
            ("export jsonl", [*base, str(data), "export", "-o", str(work / "all.jsonl")]),
            (
                "export markdown",
                [*base, str(data), "export", "--format", "markdown", "-o", str(work / "all.md")],
            ),
            ("import jsonl", [*base, str(work / "empty"), "import", str(work / "all.jsonl")]),
            ("backup", [*base, str(data), "backup", "-o", str(work / "b.sqlite")]),
        ]
        print(f"{'step':<16} {'seconds':>8} {'memories/s':>11} {'peak RSS MiB':>13}")
        for name, command in steps:
            seconds, rss = run(command)
            print(f"{name:<16} {seconds:>8.2f} {count / seconds:>11,.0f} {rss:>13.0f}")
        print(f"JSONL file {(work / 'all.jsonl').stat().st_size / 2**20:.0f} MiB")
        print(f"Python heap peak of a JSONL export (tracemalloc): {heap_peak(data):.1f} MiB")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

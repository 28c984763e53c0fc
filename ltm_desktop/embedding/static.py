"""``static``: token vectors shipped inside ltm-desktop itself, nothing to download.

The model (``model/``: a WordPiece tokenizer and a table of 29,525 token vectors of 256
dimensions, int8 with a scale per token, 7.6 MB) was trained by
scripts/train_static_model.py to reproduce all-MiniLM-L6-v2's sentence vectors with
the mean of a text's token vectors (model2vec's distillation, then training on 120,000
short texts about software). A text's vector is the sum of its content words' token
vectors, scaled to unit length: no transformer runs, so embedding costs microseconds
and a write can be embedded as it happens.

It is loaded from the installed package by path (numpy and the ``tokenizers`` library),
so it never touches the network. Anything wrong with it (a missing library, a damaged
file) is said once in the log and in ``status``, and search goes on by words. Its
vocabulary is English: a text mostly in another script gets no vector (words only).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ltm_desktop.core.errors import EmbedderUnavailable
from ltm_desktop.core.search.query import STOP_WORDS

log = logging.getLogger(__name__)
# Names the vectors: a new model gets a new name, and the backfill re-embeds every memory.
MODEL = "ltm-static-256-v2"
MODEL_DIR = Path(__file__).resolve().parent / "model"
SKIPPED_TOKENS = frozenset({0, 1})  # [PAD] and [UNK]: they say nothing about a text
# Cosine similarity a query's nearest memory must reach for meaning to count (core.hybrid):
# on the development sets of bench/retrieval_dev.py, the highest floor that keeps their
# recall; it gives 6 of their 40 questions about nothing stored a hit by meaning, and
# lower floors give many of them one (README, bench/retrieval_bench.py --dev).
FLOOR = 0.28
BATCH = 256  # texts per tokenizer call
_WORD_SPLIT = str.maketrans({c: " " for c in "?!.,;:()[]{}\"'`"})


@dataclass(frozen=True)
class StaticModel:
    """A tokenizer (``tokenizers.Tokenizer``) and its token vectors (tokens x dimensions),
    each row times its entry in ``scales`` when there are scales (int8 rows stay int8 in
    memory: 7.6 MB rather than 30)."""

    tokenizer: Any
    embedding: Any
    scales: Any = None


def load_bundled(folder: Path = MODEL_DIR) -> StaticModel:
    """The model shipped in the package (``folder``): int8 vectors and their scales."""
    import numpy as np
    from tokenizers import Tokenizer

    # The file is opened here, not by numpy, which leaves it open when the archive is bad.
    with open(folder / "vectors.npz", "rb") as file, np.load(file, allow_pickle=False) as stored:
        vectors, scales = stored["vectors"], stored["scales"]
    if vectors.ndim != 2 or scales.shape != (vectors.shape[0],):
        raise ValueError(f"vectors.npz holds shapes {vectors.shape} and {scales.shape}")
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return StaticModel(tokenizer, vectors, scales)


class StaticEmbedder:
    """Pooled static token vectors: cheap enough to embed on every write."""

    model = MODEL
    inline = True
    floor = FLOOR

    def __init__(self, loader: Callable[[], StaticModel] = load_bundled) -> None:
        self._loader = loader
        self._lock = threading.Lock()
        self._ready: tuple[Any, Any, Any, Any] | None = None  # numpy, tokenizer, table, scales
        self._problem: str | None = None

    def problem(self) -> str | None:
        return self._problem

    def _load(self) -> tuple[Any, Any, Any, Any]:
        with self._lock:
            if self._ready is not None:
                return self._ready
            if self._problem is not None:
                raise EmbedderUnavailable(self._problem)
            try:
                import numpy as np

                model = self._loader()
                table = np.array(model.embedding)  # a copy: the skipped rows are zeroed
                scales = np.ones(len(table), np.float32) if model.scales is None else model.scales
                scales = np.asarray(scales, dtype=np.float32)
                if table.ndim != 2 or scales.shape != (len(table),):
                    raise ValueError("the model's weights are not a matrix with a scale per row")
                if not (np.isfinite(scales).all() and np.isfinite(table).all()):
                    raise ValueError("the model's weights are not finite")
                table[[i for i in SKIPPED_TOKENS if i < len(table)]] = 0
                self._ready = (np, model.tokenizer, table, scales)
            except Exception as exc:  # any failure to load: say it once, then search by words
                self._problem = (
                    f"semantic search is off: the static model could not be loaded "
                    f"({type(exc).__name__}: {exc}); searching by words only"
                )
                log.warning("%s", self._problem)
                raise EmbedderUnavailable(self._problem) from exc
            return self._ready

    def embed(self, texts: Sequence[str]) -> list[bytes]:
        np, tokenizer, table, scales = self._load()
        size = table.shape[0]
        out: list[bytes] = []
        for start in range(0, len(texts), BATCH):
            batch = [content_words(text) for text in texts[start : start + BATCH]]
            # a lone surrogate (JSON can carry one) is no text the tokenizer takes
            batch = [text.encode("utf-8", "replace").decode("utf-8") for text in batch]
            if len(batch) == 1:  # a write or a query: no batch thread pool
                encodings = [tokenizer.encode(batch[0], add_special_tokens=False)]
            else:
                encodings = tokenizer.encode_batch(batch, add_special_tokens=False)
            for encoding in encodings:
                if outside_vocabulary(encoding.tokens):
                    out.append(bytes(4 * table.shape[1]))  # no meaning: words only
                    continue
                ids = np.fromiter(encoding.ids, dtype=np.int64)
                ids = ids[(ids >= 0) & (ids < size)]
                vector = scales[ids] @ table[ids].astype(np.float32)
                norm = float(np.sqrt(vector @ vector))
                unit = vector / norm if norm > 0 else vector
                out.append(unit.astype("<f4").tobytes())
        return out


def outside_vocabulary(tokens: Sequence[str]) -> bool:
    """Whether most of a text is outside the model's vocabulary: unknown (Chinese) or cut
    into single letters (Cyrillic, Hangul, kana), whose sums mean nothing and make
    unrelated texts look alike. Such a text gets no vector, so it is searched by words;
    accented Latin letters fold to their base letters and are understood."""
    weak = sum(
        token == "[UNK]" or (len(token.lstrip("#")) == 1 and not token.lstrip("#").isascii())
        for token in tokens
    )
    return weak * 2 > len(tokens)


def content_words(text: str) -> str:
    """The text without stop words: "the", "how", "do"... only blur a sum of tokens."""
    words = text.translate(_WORD_SPLIT).split()
    kept = [w for w in words if w.lower() not in STOP_WORDS]
    return " ".join(kept or words)

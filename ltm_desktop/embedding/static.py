"""``static``: token embeddings shipped inside the ``wordllama`` package, nothing to download.

WordLlama's ``l2_supercat`` model (256 dimensions, a 16 MB safetensors file in its wheel)
gives each token a vector; a text's vector is the mean of its tokens' vectors, less the
mean of the whole vocabulary (which every text shares and which only blurs the
comparison), scaled to unit length. Loading takes a fraction of a second and embedding
is tens of thousands of short texts a second on one core (bench/retrieval_bench.py).

The model is loaded from the installed package with downloads disabled: its loader
looks for the tokenizer in a ``tokenizers/`` folder of the *cache* directory, so the
package's own directory is passed as the cache. It never touches the network.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ltm_desktop.core.errors import EmbedderUnavailable
from ltm_desktop.core.query import STOP_WORDS

log = logging.getLogger(__name__)
MODEL = "wordllama-l2_supercat-256"
# Cosine similarity a query's nearest memory must reach for meaning to count (core.hybrid):
# 15 unrelated questions ("banana bread recipe", "volcano eruption history") reached at
# most 0.27 against some 400 software memories (the retrieval benchmark's and more).
FLOOR = 0.28
BATCH = 64  # texts per tokenizer call (padded to the longest, so not too many)
_WORD_SPLIT = str.maketrans({c: " " for c in "?!.,;:()[]{}\"'`"})


def load_wordllama() -> Any:
    """WordLlama's inference object, from the installed package only (never a download).

    Importing wordllama configures the root logger (``logging.basicConfig`` in its
    inference module); that is undone, so our logs keep going where they went.
    """
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        import wordllama
    finally:
        for handler in root.handlers[:]:
            if handler not in handlers:
                root.removeHandler(handler)
        root.setLevel(level)
    package = Path(wordllama.__file__).resolve().parent
    return wordllama.WordLlama.load(config="l2_supercat", cache_dir=package, disable_download=True)


class StaticEmbedder:
    """Mean-pooled, centred static token embeddings: cheap enough to embed on every write."""

    model = MODEL
    inline = True
    floor = FLOOR

    def __init__(self, loader: Callable[[], Any] = load_wordllama) -> None:
        self._loader = loader
        self._lock = threading.Lock()
        self._ready: tuple[Any, Any, Any] | None = None  # (numpy, tokenizer, table)
        self._problem: str | None = None

    def problem(self) -> str | None:
        return self._problem

    def _load(self) -> tuple[Any, Any, Any]:
        with self._lock:
            if self._ready is not None:
                return self._ready
            if self._problem is not None:
                raise EmbedderUnavailable(self._problem)
            try:
                import numpy as np

                model = self._loader()
                table = np.asarray(model.embedding, dtype=np.float32)
                if table.ndim != 2 or not np.isfinite(table).all():
                    raise ValueError("the model's weights are not a finite matrix")
                table = table - table.mean(axis=0)
                self._ready = (np, model.tokenizer, table)
            except Exception as exc:  # any failure to load: say it once, then search by words
                self._problem = (
                    f"semantic search is off: the static model could not be loaded "
                    f"({type(exc).__name__}: {exc}); searching by words only"
                )
                log.warning("%s", self._problem)
                raise EmbedderUnavailable(self._problem) from exc
            return self._ready

    def embed(self, texts: Sequence[str]) -> list[bytes]:
        np, tokenizer, table = self._load()
        out: list[bytes] = []
        for start in range(0, len(texts), BATCH):
            batch = [_content_words(text) for text in texts[start : start + BATCH]]
            if len(batch) == 1:  # a write or a query: no padding, no batch thread pool
                out.append(self._one(np, tokenizer, table, batch[0]))
                continue
            encodings = tokenizer.encode_batch(batch, add_special_tokens=False)
            ids = np.array([e.ids for e in encodings], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encodings], dtype=np.float32)
            mask[(ids < 0) | (ids >= table.shape[0])] = 0  # padding, or beyond the table
            np.clip(ids, 0, table.shape[0] - 1, out=ids)
            sums = np.einsum("btd,bt->bd", table[ids], mask)
            vectors = sums / np.maximum(mask.sum(axis=1, keepdims=True), 1.0)
            norms = np.linalg.norm(vectors, axis=1, keepdims=True)
            units = np.where(norms > 0, vectors / np.where(norms > 0, norms, 1.0), 0.0)
            out += [row.tobytes() for row in units.astype("<f4")]
        return out

    @staticmethod
    def _one(np: Any, tokenizer: Any, table: Any, text: str) -> bytes:
        ids = [i for i in tokenizer.encode(text, add_special_tokens=False).ids if i >= 0]
        if not ids:
            return bytes(4 * table.shape[1])
        vector = table[np.minimum(ids, table.shape[0] - 1)].sum(axis=0)
        norm = float(np.sqrt(vector @ vector))
        unit = vector / norm if norm > 0 else vector
        return bytes(unit.astype("<f4").data)


def _content_words(text: str) -> str:
    """The text without stop words: "the", "how", "do"... only blur an average of tokens."""
    words = text.translate(_WORD_SPLIT).split()
    kept = [w for w in words if w.lower() not in STOP_WORDS]
    return " ".join(kept or words)

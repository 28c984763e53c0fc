"""Embedders for tests: deterministic vectors without a model (``core.seams.Embedder``)."""

from __future__ import annotations

import math
import struct
import zlib
from collections.abc import Mapping, Sequence

from ltm_desktop.core.errors import EmbedderUnavailable
from ltm_desktop.core.search.query import STOP_WORDS, split_words

DIM = 64


class WordHashEmbedder:
    """Each word (after ``synonyms``) adds to one of DIM dimensions: texts sharing words,
    or words the table calls synonyms, are similar; ``calls`` counts the texts embedded."""

    inline = True
    floor = 0.3

    def __init__(self, synonyms: dict[str, str] | None = None, model: str = "test-hash") -> None:
        self.model = model
        self.synonyms = synonyms or {}
        self.calls = 0

    def embed(self, texts: Sequence[str]) -> list[bytes]:
        self.calls += len(texts)
        out = []
        for text in texts:
            vector = [0.0] * DIM
            for word in split_words(text):
                if word in STOP_WORDS:
                    continue
                word = self.synonyms.get(word, word)
                vector[zlib.crc32(word.encode()) % DIM] += 1.0
            norm = math.sqrt(sum(v * v for v in vector)) or 1.0
            out.append(struct.pack(f"<{DIM}f", *(v / norm for v in vector)))
        return out

    def problem(self) -> str | None:
        return None


class BrokenEmbedder:
    """A model that cannot load: every call fails, as the real one reports it."""

    model = "broken"
    inline = True
    floor = 0.3

    def __init__(self) -> None:
        self.calls = 0

    def embed(self, texts: Sequence[str]) -> list[bytes]:
        self.calls += 1
        raise EmbedderUnavailable("semantic search is off: the model could not be loaded")

    def problem(self) -> str | None:
        return "semantic search is off: the model could not be loaded" if self.calls else None


class TableEmbedder:
    """Vectors given by the test: a text gets the vector of the first key it contains
    (normalised), or zeros; for placing memories exactly where a test needs them."""

    model = "test-table"
    inline = True
    floor = 0.3

    def __init__(self, table: Mapping[str, Sequence[float]]) -> None:
        self.table = table

    def embed(self, texts: Sequence[str]) -> list[bytes]:
        out = []
        for text in texts:
            found = next((v for key, v in self.table.items() if key in text), None)
            vector = list(found) if found is not None else [0.0] * DIM
            norm = math.sqrt(sum(v * v for v in vector)) or 1.0
            out.append(struct.pack(f"<{len(vector)}f", *(v / norm for v in vector)))
        return out

    def problem(self) -> str | None:
        return None


class EndpointEmbedder(WordHashEmbedder):
    """Like a remote endpoint: never inline (writes leave vectors to the backfill), and it
    can be ``down`` (every call fails, and ``problem`` says so) and come back."""

    inline = False

    def __init__(
        self, synonyms: dict[str, str] | None = None, model: str = "test-endpoint"
    ) -> None:
        super().__init__(synonyms, model)
        self.down = False

    def embed(self, texts: Sequence[str]) -> list[bytes]:
        if self.down:
            raise EmbedderUnavailable("semantic search is off: the endpoint is down")
        return super().embed(texts)

    def problem(self) -> str | None:
        return "semantic search is off: the endpoint is down" if self.down else None

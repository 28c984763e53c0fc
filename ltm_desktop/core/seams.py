"""Extension points for later phases, each a small protocol with a no-op default.

The service calls every seam on its normal path, so a real implementation
(semantic embeddings, an external memory provider, a consolidator that merges
related memories) plugs in without touching the service.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ltm_desktop.core.records import Memory, SearchHit


class Embedder(Protocol):
    """Turns text into vectors for semantic search (``ltm_desktop.embedding``).

    Attributes:
        model: names the vectors; a vector made by another model is not compared ("":
            no embedder, search by words only).
        inline: cheap enough to embed every write as it happens (a local model); others
            leave new memories to the background backfill.
        floor: the cosine similarity below which a text is not similar in meaning.
    """

    @property
    def model(self) -> str: ...
    @property
    def inline(self) -> bool: ...
    @property
    def floor(self) -> float: ...

    def embed(self, texts: Sequence[str]) -> list[bytes]:
        """One unit vector of float32 (little-endian bytes) per text, in order.

        Raises:
            EmbedderUnavailable: it cannot embed now (model missing or broken, endpoint
                down); the service then searches by words only.
        """
        ...

    def problem(self) -> str | None:
        """Why it does not work, for a status line (None: fine, or not tried yet)."""
        ...


class ExternalProvider(Protocol):
    """Another memory source whose hits are merged into agent searches."""

    def search(self, project_ids: Sequence[str], query: str, limit: int) -> list[SearchHit]: ...


class Consolidator(Protocol):
    """Finds memories that could be merged or retired; returns suggestions, changes nothing."""

    def suggest(self, memories: Sequence[Memory]) -> list[tuple[str, ...]]: ...


class NoEmbedder:
    """``[search] embedder = "none"``: search by words only."""

    model = ""
    inline = False
    floor = 1.0

    def embed(self, texts: Sequence[str]) -> list[bytes]:
        return []

    def problem(self) -> str | None:
        return None


class NoExternalProvider:
    def search(self, project_ids: Sequence[str], query: str, limit: int) -> list[SearchHit]:
        return []


class NoConsolidator:
    def suggest(self, memories: Sequence[Memory]) -> list[tuple[str, ...]]:
        return []

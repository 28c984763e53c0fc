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
    """Turns memory text into vectors for semantic search."""

    def embed(self, texts: Sequence[str]) -> list[list[float]] | None: ...


class ExternalProvider(Protocol):
    """Another memory source whose hits are merged into agent searches."""

    def search(self, project_ids: Sequence[str], query: str, limit: int) -> list[SearchHit]: ...


class Consolidator(Protocol):
    """Finds memories that could be merged or retired; returns suggestions, changes nothing."""

    def suggest(self, memories: Sequence[Memory]) -> list[tuple[str, ...]]: ...


class NoEmbedder:
    def embed(self, texts: Sequence[str]) -> list[list[float]] | None:
        return None


class NoExternalProvider:
    def search(self, project_ids: Sequence[str], query: str, limit: int) -> list[SearchHit]:
        return []


class NoConsolidator:
    def suggest(self, memories: Sequence[Memory]) -> list[tuple[str, ...]]:
        return []

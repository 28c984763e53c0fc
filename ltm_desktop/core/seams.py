"""Extension points for later phases, each a small protocol with a no-op default.

The service calls every seam on its normal path, so a real implementation
(semantic embeddings, an external memory provider, a background task) plugs in without touching the service.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ltm_desktop.core.errors import LtmError
from ltm_desktop.core.inbox.proposals import ExtractionRequest
from ltm_desktop.core.records import SearchHit


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


class BackgroundTask(Protocol):
    """Work the process serving the data dir does now and then (the periodic consolidation,
    ``ltm_desktop.agent.consolidation.periodic``); the composition root installs one as
    ``MemoryService.consolidation`` and closing the service closes it."""

    def close(self) -> None:
        """Stop: wait briefly for a run in progress (it writes in one transaction)."""
        ...


NO_EXTRACTOR = "no extractor is configured: set [extractor] base_url and model in the config"


class ExtractorOff(LtmError):
    """No extractor is configured: nothing is extracted, nothing leaves the machine."""


class ExtractionQueue(Protocol):
    """Runs extractions in the background (``ltm_desktop.agent.extractor.worker``); the
    composition root installs one as ``MemoryService.extraction``."""

    def submit(self, request: ExtractionRequest) -> None:
        """Queue ``request`` and return at once; raises ExtractorOff when none is
        configured, LtmError when the queue is full."""
        ...

    def close(self) -> None:
        """Stop taking requests; wait briefly for the one running."""
        ...


class NoExtraction:
    def submit(self, request: ExtractionRequest) -> None:
        raise ExtractorOff(NO_EXTRACTOR)

    def close(self) -> None:
        return None


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


class NoBackgroundTask:
    def close(self) -> None:
        return None

"""The embedder ``[search] embedder`` names (nothing is loaded until it embeds)."""

from __future__ import annotations

import os

from ltm_desktop.core.seams import Embedder, NoEmbedder
from ltm_desktop.core.settings.config import Settings


def make_embedder(settings: Settings) -> Embedder:
    if settings.search_embedder == "static":
        from ltm_desktop.embedding.static import StaticEmbedder

        return StaticEmbedder()
    if settings.search_embedder == "openai":
        from ltm_desktop.embedding.remote import RemoteEmbedder

        key = os.environ.get(settings.search_api_key_env, "") if settings.search_api_key_env else ""
        return RemoteEmbedder(settings.search_endpoint, settings.search_model, key)
    return NoEmbedder()

"""Composition root: settings -> store -> service. No logic of its own."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ltm_desktop.core.config import Settings, load_settings
from ltm_desktop.core.paths import (
    DataPaths,
    prepare_data_dir,
    resolve_config_path,
    resolve_data_dir,
)
from ltm_desktop.core.service import MemoryService
from ltm_desktop.embedding.factory import make_embedder
from ltm_desktop.store import open_store


@dataclass
class OpenedService:
    service: MemoryService
    settings: Settings
    config_path: Path
    warnings: list[str] = field(default_factory=list)
    purged_at_start: int = 0


def open_service(
    data_dir: str | os.PathLike[str] | None = None,
    config_path: str | os.PathLike[str] | None = None,
    clock: Callable[[], float] = time.time,
    *,
    background: bool = False,
) -> OpenedService:
    """Open the data directory's database, run startup housekeeping, return the service.

    Args:
        background: a long-lived process (the app, ``serve``): fill in missing vectors and
            token sets in the background. Short-lived commands leave that to those.
    """
    config = resolve_config_path(config_path)
    settings, warnings = load_settings(config)
    paths = DataPaths(prepare_data_dir(resolve_data_dir(data_dir)))
    store = open_store(paths.db_path, paths.backup_dir)
    embedder = make_embedder(settings)  # loads nothing until it first embeds
    service = MemoryService(store, paths, settings, clock=clock, embedder=embedder)
    try:
        purged = service.start(backfill=background)
    except BaseException:
        service.close()
        raise
    return OpenedService(service, settings, config, warnings, purged)

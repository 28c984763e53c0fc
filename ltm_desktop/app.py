"""Composition root: settings -> store -> service (with its extraction worker). No logic
of its own."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ltm_desktop.agent.extractor.worker import ExtractionWorker
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
    service.extraction = ExtractionWorker(service)
    try:
        purged = service.start(backfill=background)
    except BaseException:
        service.close()
        raise
    return OpenedService(service, settings, config, warnings, purged)


def open_service_briefly(
    data_dir: str | os.PathLike[str] | None,
    config_path: str | os.PathLike[str] | None,
    *,
    busy_timeout_ms: int,
) -> OpenedService:
    """The service for a process that lives for one event (an agent hook).

    No startup housekeeping (expiring, regenerating every MEMORY.md: the app's job), and
    writes wait at most ``busy_timeout_ms`` for another process's lock, not the store's 10 s.
    """
    config = resolve_config_path(config_path)
    settings, warnings = load_settings(config)
    paths = DataPaths(prepare_data_dir(resolve_data_dir(data_dir)))
    store = open_store(paths.db_path, paths.backup_dir, busy_timeout_ms=busy_timeout_ms)
    return OpenedService(MemoryService(store, paths, settings), settings, config, warnings)

"""Composition root: settings -> store -> service (with its extraction worker). No logic
of its own."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ltm_desktop.agent.extractor.worker import ExtractionWorker
from ltm_desktop.core.errors import NotADatabase
from ltm_desktop.core.files.atomic_files import check_replaceable
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.config import Settings, load_settings
from ltm_desktop.core.settings.paths import (
    DataPaths,
    check_data_dir,
    data_dir_exists,
    prepare_data_dir,
    resolve_config_path,
    resolve_data_dir,
)
from ltm_desktop.embedding.factory import make_embedder
from ltm_desktop.store import backup, open_store


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
    create: bool = True,
) -> OpenedService:
    """Open the data directory's database, run startup housekeeping, return the service.

    Args:
        background: a long-lived process (the app, ``serve``): fill in missing vectors and
            token sets in the background. Short-lived commands leave that to those.
        create: make the data dir and database when there are none. Commands that only
            look or take away (status, verify, export, erase) pass False: a mistyped
            ``--data-dir`` is an error, not a new empty database found sound.
    """
    config = resolve_config_path(config_path)
    settings, warnings = load_settings(config)
    data = resolve_data_dir(data_dir)
    if create:
        prepare_data_dir(data)
    elif data_dir_exists(data):  # else the store says there is no database, creating nothing
        check_data_dir(data)
    paths = DataPaths(data)
    store = open_store(paths.db_path, paths.backup_dir, create=create)
    embedder = make_embedder(settings)  # loads nothing until it first embeds
    service = MemoryService(store, paths, settings, clock=clock, embedder=embedder)
    service.switches.config_path, service.switches.config_problems = config, tuple(warnings)
    service.extraction = ExtractionWorker(service)
    try:
        purged = service.start(backfill=background)
        if background and settings.consolidate_interval_hours and settings.extractor_configured:
            from ltm_desktop.agent.consolidation.periodic import PeriodicConsolidation

            hours = settings.consolidate_interval_hours
            service.consolidation = periodic = PeriodicConsolidation(
                service, embedder, hours * 3600
            )
            periodic.start()
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

    No startup housekeeping (expiring, regenerating every MEMORY.md: the app's job),
    writes wait at most ``busy_timeout_ms`` for another process's lock, not the store's 10 s,
    and no database is created (an empty file or another SQLite file is refused).
    """
    config = resolve_config_path(config_path)
    settings, warnings = load_settings(config)
    paths = DataPaths(prepare_data_dir(resolve_data_dir(data_dir)))
    store = open_store(
        paths.db_path, paths.backup_dir, busy_timeout_ms=busy_timeout_ms, create=False
    )
    service = MemoryService(store, paths, settings)
    service.switches.config_path, service.switches.config_problems = config, tuple(warnings)
    return OpenedService(service, settings, config, warnings)


@dataclass(frozen=True)
class BackupMade:
    path: Path
    schema_version: int
    memories: int
    removed: tuple[Path, ...] = ()  # older automatic backups pruned to ``[backup] keep``


def backup_data_dir(
    data_dir: str | os.PathLike[str] | None,
    config_path: str | os.PathLike[str] | None,
    output: Path | None = None,
    now: float | None = None,
    *,
    keep: int | None = None,
) -> BackupMade:
    """An online, verified copy of the data dir's database: to ``output``, or into its
    ``backups/`` (keeping the newest ``keep``, default ``[backup] keep``). Safe while the
    app or a server runs."""
    if keep is None:
        keep = load_settings(resolve_config_path(config_path))[0].backup_keep
    paths = DataPaths(prepare_data_dir(resolve_data_dir(data_dir)))
    if not paths.db_path.exists():
        raise FileNotFoundError(2, "no database yet", str(paths.db_path))
    if output is not None:
        check_replaceable(output)  # the store renames its copy over it
    target = output or backup.new_backup_path(paths.backup_dir, time.time() if now is None else now)
    try:
        info = backup.backup_database(paths.db_path, target)
    except Exception:  # SQLite fails inside the copy on a damaged database: say what is wrong
        _refuse_unsound(paths.db_path)
        raise
    removed = () if output else tuple(backup.prune_backups(paths.backup_dir, keep))
    return BackupMade(info.path, info.schema_version, info.memories, removed)


def _refuse_unsound(db_path: Path) -> None:
    """NotADatabase, saying what is wrong, if the database at ``db_path`` is not sound
    (checked read only); otherwise nothing, and the caller's error stands."""
    try:
        backup.check_database_file(db_path)
    except NotADatabase as exc:
        raise NotADatabase(f"cannot back up: {exc}") from None


def backup_if_due(
    data_dir: str | os.PathLike[str] | None,
    config_path: str | os.PathLike[str] | None,
    now: float | None = None,
) -> BackupMade | None:
    """The app's backup at start: made when the newest automatic backup is older than
    ``[backup] every_days`` (0: never), or there is none."""
    settings, _ = load_settings(resolve_config_path(config_path))
    now = time.time() if now is None else now
    newest = last_backup(data_dir)
    if settings.backup_every_days == 0:
        return None
    if newest is not None and now - newest.stat().st_mtime < settings.backup_every_days * 86_400:
        return None
    return backup_data_dir(data_dir, config_path, now=now)


def last_backup(data_dir: str | os.PathLike[str] | None) -> Path | None:
    """The newest automatic backup of the data dir, if any."""
    found = backup.automatic_backups(DataPaths(resolve_data_dir(data_dir)).backup_dir)
    return found[0] if found else None


def check_backup_file(path: Path) -> tuple[int, int]:
    """(schema version, memories) of a database file; NotADatabase if it is not a sound one."""
    info = backup.check_database_file(path)
    return info.schema_version, info.memories


def restore_data_dir(
    data_dir: str | os.PathLike[str] | None, source: Path
) -> tuple[Path | None, int]:
    """Replace the data dir's database by ``source`` if it verifies (schema, integrity,
    audit chain, and the memories replayed from their history as ``verify`` does:
    ``backup.vet_restore``; a refusal changes nothing); returns where the current one was
    kept (None: there was none) and how many memories the restored one holds. The caller
    holds the data dir's server lock."""
    from ltm_desktop.core.history.verifying import check_replay

    paths = DataPaths(prepare_data_dir(resolve_data_dir(data_dir)))
    restored = backup.restore_database(paths.db_path, source, paths.backup_dir, check_replay)
    return restored.aside, restored.info.memories

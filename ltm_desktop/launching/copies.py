"""``ltm-desktop migrate``: the two ends of a copy, and a service on its target."""

from __future__ import annotations

from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.launch import Launch
from ltm_desktop.core.settings.paths import check_data_dir, prepare_data_dir
from ltm_desktop.embedding.factory import make_embedder
from ltm_desktop.engine.copying import CopySource, CopyTarget
from ltm_desktop.launching.opened import launch_identity
from ltm_desktop.launching.stores import open_launch_store


def open_copy_source(launch: Launch, database_url: str | None) -> CopySource:
    """The rows to copy (``engine.copying``), one read snapshot: the PostgreSQL database
    ``database_url`` names, or (None) the SQLite database of the launch's data dir."""
    if database_url is None:
        from ltm_desktop.store import SqliteRows

        check_data_dir(launch.data_dir)
        return SqliteRows(launch.paths.db_path, launch.paths.backup_dir)
    from ltm_desktop.postgres.copying import PgRows

    return PgRows(database_url)


def open_copy_target(launch: Launch, database_url: str | None) -> CopyTarget:
    """Where a copy goes: the PostgreSQL database ``database_url`` names (its schema made
    if it has none), or (None) a new SQLite database in the launch's data dir."""
    if database_url is None:
        from ltm_desktop.store import SqliteTarget

        prepare_data_dir(launch.data_dir)
        return SqliteTarget(launch.paths.db_path, launch.paths.backup_dir)
    from ltm_desktop.postgres.copying import PgTarget

    return PgTarget(database_url)


def open_copied_service(launch: Launch, database_url: str | None) -> MemoryService:
    """A service on a copy's target, not started (no expiry, no MEMORY.md written: the
    copy stays as it was copied), for its backfill and its verification."""
    from dataclasses import replace

    from ltm_desktop.core.settings.database_url import DatabaseUrl

    url = None if database_url is None else DatabaseUrl.parse(database_url)
    target = replace(launch, database_url=url)  # not the configured store: the copy's
    return MemoryService(
        open_launch_store(target, create=False),
        target.paths,
        target.settings,
        embedder=make_embedder(target.settings),
        config_path=target.config_path,
        identity=launch_identity(target),
    )
